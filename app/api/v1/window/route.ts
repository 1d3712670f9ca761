import * as api from "@/lib/api/contracts/context";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { cachedSavedPresets } from "@/lib/models/model-settings";
import { storedSummaryCache } from "@/lib/strategies/agentscope/summary-cache";
import { applyStrategy } from "@/lib/strategies/apply-strategy";
import { storeOffloads } from "@/lib/strategies/offloaded-contents";
import { projectTextCounter } from "@/lib/strategies/text-counts";

export const dynamic = "force-dynamic";

/** Preview a strategy on a pasted messages array; nothing of it is stored but offloads (and the model's summaries). */
export const POST = withApi(api.previewWindow, async ({ access, body }) => {
  const sql = await dataSql(access);
  const r = await applyStrategy(body.messages, body.strategy, {
    model: body.model,
    temporary: body.temporary_messages,
    presets: await cachedSavedPresets(sql),
    autoContext: { summaryCache: storedSummaryCache(sql) },
    // An agent sends its whole history every turn: texts counted by its earlier requests are looked up.
    textCounts: projectTextCounter(access.projectId),
  });
  await storeOffloads(sql, r.offloads);
  const { offloads: _o, preset: _p, sourceIndex: _s, ...result } = r;
  return result;
});
