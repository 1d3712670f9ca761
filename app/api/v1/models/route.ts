import * as api from "@/lib/api/contracts/context";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { allPresets } from "@/lib/models/model-settings";
import { resolveTokenizer } from "@/lib/tokens/registry";

export const dynamic = "force-dynamic";

/** Known models with their encoding, context window and whether counting is exact. */
export const GET = withApi(api.listModels, async ({ access }) => {
  const presets = await allPresets(await dataSql(access));
  return {
    data: presets.map((p) => ({
      ...resolveTokenizer(p.model),
      encoding: p.encoding,
      approximate: !p.exact,
      context_window: p.context_window,
      exact: p.exact,
      source: p.source,
    })),
  };
});
