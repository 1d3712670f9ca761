import * as api from "@/lib/api/contracts/context";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { UnavailableError } from "@/lib/errors/domain-errors";

export const dynamic = "force-dynamic";

/** Readiness: 200 once the database is open and migrated. Open to health checks. */
export const GET = withApi(api.readiness, async () => {
  let db;
  try {
    db = await getDb();
  } catch (e) {
    throw new UnavailableError("database_unavailable", (e as Error).message);
  }
  return { status: "ready" as const, database: db.config.kind };
});
