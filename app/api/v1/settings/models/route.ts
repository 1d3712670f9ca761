import * as api from "@/lib/api/contracts/context";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { allPresets, savePresets } from "@/lib/models/model-settings";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getModelSettings, async ({ access }) => ({ data: await allPresets(await dataSql(access)) }));

/** Replaces the saved presets (they override built-ins of the same model name). */
export const PUT = withApi(api.saveModelSettings, async ({ access, body }) => {
  const sql = await dataSql(access);
  await savePresets(sql, body.presets);
  return { data: await allPresets(sql) };
});
