import { randomUUID } from "node:crypto";
import type { AutoContextReport, AutoContextStrategy, RoleMessage } from "../schemas";
import type { StrategyOutput, Transformed } from "../strategy-types";
import { compressIfNeeded, type StepReport } from "./compress-if-needed";
import { hookSystemMessages } from "./hook";
import { fromRoleMessages, toRoleMessage, type AsMsg } from "./msg";
import { CONTEXT_RELOAD_TOOL } from "./prompts";
import type { AutoContextConfig, MemoryState, Summarizer } from "./state";
import { estimateTokens } from "./token-estimate";

export type SummaryInfo = {
  summarize: Summarizer;
  model: string | null;
  counts: () => { calls: number; cached: number };
  setCall?: (call: number) => void;
  /** The configured chat model even when placeholders were asked for. */
  chatModel?: string | null;
};

export type AutoContextRun = StrategyOutput & { report: AutoContextReport; memory: RoleMessage[] };

export function configOf(s: AutoContextStrategy): AutoContextConfig {
  return {
    msg_threshold: s.msg_threshold,
    token_ratio: s.token_ratio,
    max_token: s.max_token,
    last_keep: s.last_keep,
    large_payload_threshold: s.large_payload_threshold,
    offload_single_preview: s.offload_single_preview,
    min_consecutive_tool_messages: s.min_consecutive_tool_messages,
    min_compression_token_threshold: s.min_compression_token_threshold,
    current_round_compression_ratio: s.current_round_compression_ratio,
  };
}

type Step = AutoContextReport["steps"][number];
const stepOf = (call: number, turnIndex: number | null, r: StepReport): Step => ({ call, turn_index: turnIndex, ...r });

function newState(s: AutoContextStrategy, summary: SummaryInfo, newUuid: () => string): MemoryState & { written: { n: number } } {
  const written = { n: 0 };
  const summarize: Summarizer = (req) => {
    written.n++;
    return summary.summarize(req);
  };
  return { config: configOf(s), memory: [], offloads: new Map(), summarize, newUuid, written };
}

/** What the model receives (hook system messages, then the memory), with the report and what to store. */
function finish(state: MemoryState & { written: { n: number } }, s: AutoContextStrategy, systemPrompt: string, summary: SummaryInfo, steps: Step[], calls: number, triggeredCalls: number): AutoContextRun {
  const hook = hookSystemMessages(systemPrompt, s.hook_wiring);
  const memory = state.memory.map(toRoleMessage);
  const transformed: Transformed[] = hook.map(() => ({ index: -1, action: "system_inserted" as const, reason: "AutoContextHook: the instruction about offload tags (context_reload)" }));
  const offloads: NonNullable<StrategyOutput["offloads"]> = [];
  for (const step of steps) {
    for (const e of step.events) {
      if (!e.offload_ref) continue;
      const originals: AsMsg[] = state.offloads.get(e.offload_ref) ?? [];
      offloads.push({ ref: e.offload_ref, content: JSON.stringify(originals.map(toRoleMessage), null, 1), tokens: estimateTokens(originals) });
      const action = e.summarizer_messages ? "summarized" : "offloaded";
      for (const o of originals) {
        if (o.index >= 0) transformed.push({ index: o.index, action, reason: `${e.type} at model call ${step.call}`, ref: e.offload_ref });
      }
    }
  }
  const counts = summary.counts();
  return {
    messages: [...hook, ...memory],
    memory,
    sourceIndex: [...hook.map(() => -1), ...state.memory.map((m) => m.index)],
    dropped: [],
    transformed,
    triggered: triggeredCalls > 0,
    offloads,
    report: {
      follows: "AgentScope v1.0.12 AutoContextMemory",
      hook_wiring: s.hook_wiring,
      summaries: summary.model ? "model" : "placeholder",
      summary_model: summary.model,
      chat_model: summary.chatModel ?? summary.model,
      summaries_written: state.written.n,
      model_calls: counts.calls,
      cached_summaries: counts.cached,
      calls,
      triggered_calls: triggeredCalls,
      steps,
      tools: [{ ...CONTEXT_RELOAD_TOOL, parameters: { ...CONTEXT_RELOAD_TOOL.parameters } }],
      memory: { messages: state.memory.length, tokens: estimateTokens(state.memory) },
    },
  };
}

/**
 * The given messages are the agent's memory as it stands; `steps` model calls are
 * simulated on it, each running compressIfNeeded once and carrying its result on.
 */
export async function runAutoContext(
  messages: RoleMessage[],
  s: AutoContextStrategy,
  summary: SummaryInfo,
  opts: { systemPrompt?: string; newUuid?: () => string } = {},
): Promise<AutoContextRun> {
  const state = newState(s, summary, opts.newUuid ?? randomUUID);
  state.memory = fromRoleMessages(messages);
  const steps: Step[] = [];
  let triggered = 0;
  for (let call = 1; call <= s.steps; call++) {
    summary.setCall?.(call);
    const r = await compressIfNeeded(state);
    if (r.triggered) triggered++;
    steps.push(stepOf(call, null, r));
  }
  return finish(state, s, opts.systemPrompt ?? s.system_prompt, summary, steps, s.steps, triggered);
}

/**
 * A stored conversation replayed: the agent made a model call before each assistant
 * message, so compression runs there and its result is carried forward. `next` (the
 * new query) is appended before the final call, as the agent would. Only the calls
 * where a strategy was applied are listed.
 */
export async function replayAutoContext(
  history: RoleMessage[],
  next: RoleMessage | null,
  s: AutoContextStrategy,
  summary: SummaryInfo,
  opts: { systemPrompt?: string; newUuid?: () => string } = {},
): Promise<AutoContextRun> {
  const state = newState(s, summary, opts.newUuid ?? randomUUID);
  const all = fromRoleMessages(next ? [...history, next] : history);
  const steps: Step[] = [];
  let calls = 0;
  let triggered = 0;
  const call = async (turnIndex: number | null) => {
    calls++;
    summary.setCall?.(calls);
    const r = await compressIfNeeded(state);
    if (r.triggered) triggered++;
    if (r.strategy !== null) steps.push(stepOf(calls, turnIndex, r));
  };
  for (const m of all) {
    if (m.role === "ASSISTANT" && m.index < history.length && state.memory.length) await call(m.index);
    state.memory.push(m);
  }
  await call(null);
  return finish(state, s, opts.systemPrompt ?? s.system_prompt, summary, steps, calls, triggered);
}
