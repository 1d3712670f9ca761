import { getDb } from "@/lib/db/get-db";
import { allPresets, savePresets } from "@/lib/models/model-settings";
import { ZModelPresetsInput } from "@/lib/models/schemas";
import { parseBody, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => ({ data: await allPresets((await getDb()).sql) }));

/** Replaces the saved presets (they override built-ins of the same model name). */
export const PUT = withApi(async ({ req }) => {
  const body = await parseBody(req, ZModelPresetsInput, 256 * 1024);
  const db = await getDb();
  await savePresets(db.sql, body.presets);
  return { data: await allPresets(db.sql) };
});
