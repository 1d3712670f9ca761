import * as api from "@/lib/api/contracts/context";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { allPresets, savePresets } from "@/lib/models/model-settings";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getModelSettings, async () => ({ data: await allPresets((await getDb()).sql) }));

/** Replaces the saved presets (they override built-ins of the same model name). */
export const PUT = withApi(api.saveModelSettings, async ({ body }) => {
  const db = await getDb();
  await savePresets(db.sql, body.presets);
  return { data: await allPresets(db.sql) };
});
