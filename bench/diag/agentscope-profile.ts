// Where bench:agentscope's time goes (diagnostic, not a benchmark).
import { DEMO_IDS } from "../../lib/demo/demo-data";
import { demoConversations } from "../../lib/demo/demo-data";
import { replayAutoContext, runAutoContext } from "../../lib/strategies/agentscope/run-auto-context";
import { placeholderSummarizer } from "../../lib/strategies/agentscope/summarize-placeholder";
import { ZAutoContextStrategy, type RoleMessage } from "../../lib/strategies/schemas";
import { listTokens } from "../../lib/strategies/message-tokens";

const summary = { summarize: placeholderSummarizer, model: null, counts: () => ({ calls: 0, cached: 0 }) };
const s = ZAutoContextStrategy.parse({ type: "auto_context" });
const long = demoConversations().find((d) => d.conversation.id === DEMO_IDS.long)!;
const hist: RoleMessage[] = long.turns.slice(0, 496).flatMap((t) => [{ role: "user", content: t.query ?? "" } as RoleMessage, { role: "assistant", content: t.answer ?? "" } as RoleMessage]);
for (let i = 0; i < 5; i++) {
  const copy = structuredClone(hist);
  let t = performance.now();
  const r = await replayAutoContext(copy, { role: "user", content: "q" }, s, summary);
  const a = performance.now() - t;
  t = performance.now();
  listTokens(r.messages, "o200k_base");
  console.log(`replay ${a.toFixed(0)} ms, tiktoken ${(performance.now() - t).toFixed(0)} ms, calls ${r.report.calls}`);
}

// The 200-message preview, split: the port alone, then applyStrategy (tiktoken totals on top).
const { applyStrategy } = await import("../../lib/strategies/apply-strategy");
const heavy: RoleMessage[] = [];
for (let r = 0; heavy.length < 200; r++) {
  heavy.push({ role: "user", content: `round ${r}` });
  for (let k = 0; k < 7; k++) {
    heavy.push({ role: "assistant", content: "", tool_calls: [{ id: `c${r}_${k}`, name: "read_file", arguments: '{"path":"a"}' }] });
    heavy.push({ role: "tool", tool_call_id: `c${r}_${k}`, content: `line ${r}.${k}: latency_ms=123 status=200\n`.repeat(80) });
  }
  heavy.push({ role: "assistant", content: "done" });
}
heavy.length = 199;
heavy.push({ role: "user", content: "next" });
for (let i = 0; i < 5; i++) {
  let t = performance.now();
  await runAutoContext(structuredClone(heavy), s, summary);
  const a = performance.now() - t;
  t = performance.now();
  await applyStrategy(structuredClone(heavy), s, { model: "gpt-4o" });
  console.log(`port ${a.toFixed(0)} ms, applyStrategy ${(performance.now() - t).toFixed(0)} ms`);
}
