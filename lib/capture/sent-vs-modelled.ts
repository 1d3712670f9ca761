import "server-only";
import { assembleContext } from "../context/assemble-context";
import { loadThreadMessages } from "../context/load-thread-messages";
import type { ContextResult } from "../context/schemas";
import type { ProjectSql } from "../db/project-sql";
import { NotFoundError } from "../errors/domain-errors";
import { presetFor } from "../models/model-presets";
import { savedPresets } from "../models/model-settings";
import { loadReplayTurn } from "../replay/load-turn";
import { baseSettings } from "../replay/replay-settings";
import { replayTurn } from "../replay/replay-turn";
import { listTokens, textOf } from "../strategies/message-tokens";
import type { RoleMessage } from "../strategies/schemas";
import { messageText, type ChatMessage, type ChatPart } from "./genai-span";
import { promptDiff } from "./prompt-diff";
import { loadCapturedPrompt, type CapturedPrompt } from "./prompt-store";
import type { CapturedTurn, PromptLine, SentVsModelled } from "./schemas";

// For a captured turn: the prompt the agent sent (its span's input messages) beside the
// one Memscope computes for the agent's profile at that turn (the app's profile version
// in force then, assembled by the same code as POST /context: with the conversation's end
// user, exactly POST /replay's prompt; without one, the same assembly without memories).

type CaptureRow = {
  trace_id: string;
  span_id: string;
  operation: string;
  provider: string | null;
  request_model: string | null;
  message_form: "attributes" | "events" | "logs" | "ai_sdk";
  started_at: Date | string;
} & CapturedPrompt;

/** A captured span's columns, its trace and span ids, operation, provider and model from its turn's metadata.otlp. */
const SPAN_COLUMNS = `s.message_id, m.metadata->'otlp'->>'trace_id' AS trace_id, m.metadata->'otlp'->>'span_id' AS span_id,
  m.metadata->'otlp'->>'operation' AS operation, m.metadata->'otlp'->>'provider' AS provider,
  m.metadata->'otlp'->>'request_model' AS request_model, s.message_form, s.started_at`;

export async function listCapturedTurns(sql: ProjectSql, conversationId: string): Promise<CapturedTurn[]> {
  const [conv] = await sql.query(`SELECT 1 FROM conversations WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL`, [conversationId, sql.projectId]);
  if (!conv) throw new NotFoundError("Conversation", conversationId);
  const rows = await sql.query<Omit<CapturedTurn, "started_at"> & { started_at: Date | string }>(
    // Through the conversation's turns (their index); the span's ids, operation and models are its turn's metadata.otlp.
    `SELECT ${SPAN_COLUMNS}, s.input_count AS input_message_count
       FROM messages m JOIN captured_spans s ON s.project_id = m.project_id AND s.message_id = m.id
      WHERE m.project_id = $1 AND m.conversation_id = $2 AND s.conversation_id = $2 ORDER BY s.started_at, 3 LIMIT 1000`,
    [sql.projectId, conversationId],
  );
  return rows.map((r) => ({ ...r, started_at: new Date(r.started_at).toISOString() }));
}

/** The agent's prompt as lines: leading system text, the history, and what it added since the model last answered. */
export function sentLines(system: ChatPart[] | null, input: ChatMessage[]): PromptLine[] {
  const lines: PromptLine[] = [];
  const systemText = (system ?? [])
    .map((p) => (p.type === "text" && typeof p.content === "string" ? p.content : ""))
    .filter(Boolean)
    .join("\n");
  if (systemText) lines.push({ role: "system", content: systemText, section: "system" });
  let lead = 0;
  while (lead < input.length && input[lead].role === "system") lead++;
  let queryStart = input.length;
  while (queryStart > lead && input[queryStart - 1].role !== "assistant") queryStart--;
  input.forEach((m, i) => {
    const calls = m.parts.filter((p) => p.type === "tool_call").map((p) => toolCallLine(String(p.name ?? ""), p.arguments));
    lines.push({ role: m.role, content: [messageText(m), ...calls].filter(Boolean).join("\n"), section: i < lead ? "system" : i >= queryStart ? "query" : "history" });
  });
  return lines;
}

/**
 * A tool call as a line of text, so the two prompts compare by name and arguments: the
 * arguments as JSON with sorted keys (a JSON string is parsed first; the conventions allow
 * both).
 */
export function toolCallLine(name: string, args: unknown): string {
  let value = args;
  if (typeof args === "string") {
    try {
      value = JSON.parse(args);
    } catch {
      value = args;
    }
  }
  const sorted = JSON.stringify(value ?? null, (_k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));
  return `[tool call] ${name}(${sorted})`;
}

/** `queryRole`: the role the agent sent the turn's new input with (tool results: "tool"); the assembly's query is a user message. */
export function modelledLines(context: ContextResult, queryRole = "user"): PromptLine[] {
  return context.messages.map((m, i) => {
    const calls = (m.tool_calls ?? []).map((c) => toolCallLine(c.name, c.arguments));
    const section = context.message_sections[i];
    const role = section === "query" && m.role === "user" ? queryRole : m.role;
    return { role, content: [textOf(m), ...calls].filter(Boolean).join("\n"), section };
  });
}

/** "tool" when every message the agent added since the model's last answer is a tool result, else "user". */
function queryRoleOf(input: ChatMessage[]): string {
  let start = input.length;
  while (start > 0 && input[start - 1].role !== "assistant" && input[start - 1].role !== "system") start--;
  const added = input.slice(start);
  return added.length && added.every((m) => m.role === "tool") ? "tool" : "user";
}

export async function sentVsModelled(sql: ProjectSql, conversationId: string, messageId: string): Promise<SentVsModelled> {
  const turn = await loadReplayTurn(sql, conversationId, messageId);
  const [found] = await sql.query<Omit<CaptureRow, keyof CapturedPrompt>>(
    `SELECT ${SPAN_COLUMNS} FROM captured_spans s JOIN messages m ON m.project_id = s.project_id AND m.id = s.message_id
      WHERE s.project_id = $1 AND s.conversation_id = $2 AND s.message_id = $3`,
    [sql.projectId, conversationId, messageId],
  );
  if (!found) throw new NotFoundError("Captured turn", messageId, "message_id");
  // The prompt as sent, read back from its messages stored once per conversation.
  const prompt = await loadCapturedPrompt(sql, messageId);
  const row: CaptureRow = { ...found, ...(prompt ?? { system_instructions: null, input_messages: [], output_messages: [] }) };

  let context: ContextResult;
  let profile: SentVsModelled["modelled"]["profile"];
  let strategy: Record<string, unknown>;
  let memories: SentVsModelled["modelled"]["memories"];
  let model: string;
  if (turn.endUserId) {
    const r = await replayTurn(sql, { conversation_id: conversationId, message_id: messageId });
    context = r.context;
    profile = { source: r.profile.source, app_id: r.profile.app_id, version: r.profile.version, effective_from: r.profile.effective_from };
    strategy = r.settings.strategy;
    model = r.settings.model;
    memories = r.settings.memory.enabled ? "retrieved" : "off";
  } else {
    const base = await baseSettings(sql, turn.appId, new Date(turn.createdAt));
    const s = base.settings;
    const enc = presetFor(s.model, await savedPresets(sql)).encoding;
    const history = turn.leafId ? await loadThreadMessages(sql, conversationId, turn.leafId, enc) : [];
    context = await assembleContext(
      sql,
      {
        user_id: "(no end user)",
        messages: history,
        query: turn.query,
        system_prompt: s.system_prompt,
        model: s.model,
        reserved_output_tokens: s.reserved_output_tokens,
        strategy: s.strategy,
        memory: { ...s.memory, enabled: false, dry_run: true },
      },
      { recordAccess: false },
      // A read: nothing stored (there is no end user to own an offload, and a GET writes nothing).
      { storeOffloads: false },
    );
    profile = { source: base.profile.source, app_id: base.profile.app_id, version: base.profile.version, effective_from: base.profile.effective_from };
    strategy = s.strategy;
    model = s.model;
    memories = "no_end_user";
  }

  const sent = sentLines(row.system_instructions, row.input_messages);
  const modelled = modelledLines(context, queryRoleOf(row.input_messages));
  const asRole = (l: PromptLine): RoleMessage => ({ role: l.role === "tool" ? "user" : (l.role as RoleMessage["role"]), content: l.content });
  return {
    conversation_id: conversationId,
    message_id: messageId,
    app_id: turn.appId,
    captured: {
      trace_id: row.trace_id,
      span_id: row.span_id,
      operation: row.operation,
      provider: row.provider,
      request_model: row.request_model,
      message_form: row.message_form,
      started_at: new Date(row.started_at).toISOString(),
      system_instructions: row.system_instructions,
      input_messages: row.input_messages,
      output_messages: row.output_messages,
    },
    // Counted with the modelled prompt's tokenizer, so the two totals compare.
    sent: { messages: sent, tokens: listTokens(sent.map(asRole), context.encoding as Parameters<typeof listTokens>[1]) },
    modelled: { profile, strategy, model, messages: modelled, tokens: context.sections.total, memories },
    encoding: context.encoding,
    diff: promptDiff(sent, modelled),
  };
}
