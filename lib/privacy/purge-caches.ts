import "server-only";
import { forgetSpanHistories } from "../capture/span-history";
import { forgetSystemInstructions } from "../capture/system-instructions";
import { clearProcessSummaries } from "../strategies/agentscope/summary-cache";
import { forgetAnalysedTexts } from "../strategies/extractive-summary";
import { forgetTextCounts } from "../strategies/text-counts";
import { forgetLongPieces } from "../tokens/message-long-piece";
import { purgeHistoryCache } from "../window/history-cache";

/**
 * After an erasure: this process keeps no erased text in memory. Everything is dropped, not
 * only the erased user's entries: the caches are keyed by conversation or by the text itself,
 * and refill from the database on the next requests. Why other instances cannot serve erased
 * data: docs/architecture.md, "Erasure and caches".
 */
export function purgeProcessCaches(): void {
  purgeHistoryCache();
  forgetAnalysedTexts();
  clearProcessSummaries();
  forgetLongPieces();
  forgetTextCounts();
  forgetSpanHistories();
  forgetSystemInstructions();
}
