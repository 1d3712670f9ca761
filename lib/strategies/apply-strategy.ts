import { configuredChat } from "../chat/chat-provider";
import { presetFor, type ModelPreset } from "../models/model-presets";
import { DEFAULT_MODEL } from "../tokens/registry";
import { autoContextStrategy } from "./auto-context-strategy";
import { listTokens } from "./message-tokens";
import { messageWindowStrategy } from "./message-window-strategy";
import type { RoleMessage, Strategy, WindowResult } from "./schemas";
import type { StrategyOutput } from "./strategy-types";
import { tokenBufferStrategy } from "./token-buffer-strategy";

export type AppliedWindow = WindowResult & { offloads: NonNullable<StrategyOutput["offloads"]>; preset: ModelPreset; sourceIndex: number[] };

/**
 * Runs one strategy over role messages and reports the final list, its tokens and
 * every drop or change with its reason. Temporary messages go last, untouched.
 */
export async function applyStrategy(
  messages: RoleMessage[],
  strategy: Strategy,
  opts: { model?: string; temporary?: RoleMessage[]; presets?: ModelPreset[] } = {},
): Promise<AppliedWindow> {
  const preset = presetFor(opts.model ?? DEFAULT_MODEL, opts.presets);
  const ctx = { encoding: preset.encoding, contextWindow: preset.context_window };
  const temporary = opts.temporary ?? [];
  let out: StrategyOutput;
  if (strategy.type === "message_window") {
    out = messageWindowStrategy(messages, strategy, temporary);
  } else {
    out =
      strategy.type === "token_buffer"
        ? tokenBufferStrategy(messages, strategy, ctx)
        : await autoContextStrategy(messages, strategy, ctx, configuredChat());
    if (temporary.length) {
      out.messages = [...out.messages, ...temporary];
      out.sourceIndex = [...out.sourceIndex, ...temporary.map(() => -1)];
      temporary.forEach((_, i) =>
        out.transformed.push({ index: -1, action: "temporary_appended", reason: `temporary message ${i + 1} of ${temporary.length}: used once, not stored` }),
      );
    }
  }
  return {
    messages: out.messages,
    total_tokens: listTokens(out.messages, preset.encoding),
    dropped: out.dropped,
    transformed: out.transformed,
    ...(out.triggered !== undefined ? { triggered: out.triggered } : {}),
    model: preset.model,
    encoding: preset.encoding,
    context_window: preset.context_window,
    offloads: out.offloads ?? [],
    preset,
    sourceIndex: out.sourceIndex,
  };
}
