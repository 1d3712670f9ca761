import { getDb } from "@/lib/db/get-db";
import { ApiError } from "@/lib/api/api-error";
import { withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";

/** Readiness: 200 once the database is open and migrated. Open to health checks. */
export const GET = withApi(async () => {
  try {
    const db = await getDb();
    return { status: "ready", database: db.config.kind };
  } catch (e) {
    throw new ApiError(503, "database_unavailable", (e as Error).message);
  }
}, { public: true });
