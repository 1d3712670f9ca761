import { FILE_TYPES, TRANSFER_METHODS, type MessageFileInput } from "../messages/schemas";
import { UUID_NIL } from "../threads/uuid-nil";
import { isObj, isUuid, optArray, optObj, optString, optTime, RecordProblem, reqUuid, type Obj } from "./field-readers";
import type { ImportTurn } from "./types";

// One Dify message (a Service API GET /messages item, or a messages row read from Dify's
// database in the same shape) as a Memscope turn. Ids and parent_message_id are kept
// exactly, so regenerated answers stay sibling branches and UUID_NIL / null parents keep
// their Dify meaning.

const MAX_TEXT = 200_000;

export function difyParent(o: Obj, path: string): string | null | undefined {
  const v = o.parent_message_id;
  if (v === undefined) return undefined;
  if (v === null || v === "") return null;
  if (v === UUID_NIL) return UUID_NIL;
  if (!isUuid(v)) throw new RecordProblem(`${path}.parent_message_id`, "not a UUID, null or UUID_NIL");
  return v.toLowerCase();
}

export function difyMessageToTurn(m: Obj, path: string): ImportTurn {
  const id = reqUuid(m, "id", `${path}.id`);
  const query = optString(m, "query", `${path}.query`) ?? "";
  const answer = optString(m, "answer", `${path}.answer`) ?? "";
  if (query.length > MAX_TEXT) throw new RecordProblem(`${path}.query`, `longer than ${MAX_TEXT} characters`);
  if (answer.length > MAX_TEXT) throw new RecordProblem(`${path}.answer`, `longer than ${MAX_TEXT} characters`);
  const created_at = optTime(m, "created_at", `${path}.created_at`);
  const files = optArray(m, "message_files", `${path}.message_files`).map((f, i) => difyFile(f, `${path}.message_files[${i}]`));

  const metadata: Record<string, unknown> = { source: "dify" };
  const feedback = optObj(m, "feedback", `${path}.feedback`);
  if (feedback) metadata.feedback = feedback;
  const usage = tokenUsage(m, path);
  if (usage) metadata.usage = usage;
  const status = optString(m, "status", `${path}.status`);
  if (status && status !== "normal") metadata.status = status;
  const error = optString(m, "error", `${path}.error`);
  if (error) metadata.error = error;
  const inputs = optObj(m, "inputs", `${path}.inputs`);
  if (inputs && Object.keys(inputs).length) metadata.inputs = inputs;
  const resources = optArray(m, "retriever_resources", `${path}.retriever_resources`);
  if (resources.length) metadata.retriever_resources = resources;
  const toolCalls = agentToolCalls(optArray(m, "agent_thoughts", `${path}.agent_thoughts`), `${path}.agent_thoughts`);
  if (toolCalls.length) metadata.tool_calls = toolCalls;

  const completion = usage && typeof usage.completion_tokens === "number" ? usage.completion_tokens : undefined;
  return {
    id,
    path,
    parent_message_id: difyParent(m, path),
    query,
    answer,
    ...(completion !== undefined && Number.isInteger(completion) && completion >= 0 ? { answer_tokens: completion } : {}),
    ...(created_at ? { created_at } : {}),
    files,
    metadata,
  };
}

/** Token usage as Dify reports it: metadata.usage (chat responses), or the row's own counts. */
function tokenUsage(m: Obj, path: string): Record<string, unknown> | undefined {
  const meta = optObj(m, "metadata", `${path}.metadata`);
  const usage = meta && isObj(meta.usage) ? { ...meta.usage } : undefined;
  const fromRow: Record<string, unknown> = {};
  for (const [key, as] of [
    ["message_tokens", "prompt_tokens"],
    ["answer_tokens", "completion_tokens"],
    ["total_price", "total_price"],
    ["currency", "currency"],
    ["provider_response_latency", "latency"],
  ] as const) {
    const v = m[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== "number" && typeof v !== "string") throw new RecordProblem(`${path}.${key}`, "must be a number");
    fromRow[as] = key === "currency" ? v : Number(v);
  }
  if (!usage && !Object.keys(fromRow).length) return undefined;
  const out = { ...fromRow, ...(usage ?? {}) };
  if (typeof out.prompt_tokens === "number" && typeof out.completion_tokens === "number" && out.total_tokens === undefined) {
    out.total_tokens = out.prompt_tokens + out.completion_tokens;
  }
  return out;
}

function difyFile(f: unknown, path: string): MessageFileInput {
  if (!isObj(f)) throw new RecordProblem(path, "must be an object");
  const rawType = optString(f, "type", `${path}.type`) ?? "image";
  const type = (FILE_TYPES as readonly string[]).includes(rawType) ? (rawType as MessageFileInput["type"]) : "custom";
  const url = optString(f, "url", `${path}.url`) ?? null;
  const uploadFileId = optString(f, "upload_file_id", `${path}.upload_file_id`) ?? null;
  let transfer = optString(f, "transfer_method", `${path}.transfer_method`) ?? (url ? "remote_url" : "local_file");
  // Newer Dify has more ways to hand a file over; what matters here is where it can be read.
  if (!(TRANSFER_METHODS as readonly string[]).includes(transfer)) transfer = url ? "remote_url" : "local_file";
  if (transfer === "remote_url" && !url) throw new RecordProblem(`${path}.url`, "missing (remote_url files need a url)");
  if (transfer !== "remote_url" && !url && !uploadFileId) {
    throw new RecordProblem(`${path}.upload_file_id`, `missing (${transfer} files need upload_file_id or url)`);
  }
  if (url && url.length > 4000) throw new RecordProblem(`${path}.url`, "longer than 4000 characters");
  const belongs = optString(f, "belongs_to", `${path}.belongs_to`);
  return {
    type,
    transfer_method: transfer as MessageFileInput["transfer_method"],
    url,
    upload_file_id: uploadFileId,
    belongs_to: belongs === "assistant" ? "assistant" : "user",
  };
}

/** Agent thoughts that used a tool become metadata.tool_calls (shown in transcripts, expanded by /context). */
function agentToolCalls(thoughts: unknown[], path: string) {
  const calls: { id: string; name: string; arguments: string; result: string }[] = [];
  thoughts.forEach((t, i) => {
    if (!isObj(t)) throw new RecordProblem(`${path}[${i}]`, "must be an object");
    const tool = optString(t, "tool", `${path}[${i}].tool`);
    if (!tool) return;
    // One thought can name several tools separated by ";" (Dify's agent runner does).
    const names = tool.split(";").filter(Boolean);
    const input = optString(t, "tool_input", `${path}[${i}].tool_input`) ?? "";
    const observation = optString(t, "observation", `${path}[${i}].observation`) ?? "";
    const id = optString(t, "id", `${path}[${i}].id`) ?? `thought-${i}`;
    names.forEach((name, k) => {
      calls.push({ id: names.length > 1 ? `${id}-${k}` : id, name, arguments: pick(input, name), result: pick(observation, name) });
    });
  });
  return calls;
}

/** Multi-tool thoughts keep per-tool inputs as a JSON object keyed by tool name. */
function pick(text: string, name: string): string {
  try {
    const v = JSON.parse(text);
    if (isObj(v) && name in v) return typeof v[name] === "string" ? (v[name] as string) : JSON.stringify(v[name]);
  } catch {
    /* plain text */
  }
  return text;
}
