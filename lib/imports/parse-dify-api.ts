import { difyMessageToTurn } from "./dify-turn";
import { isObj, optObj, optString, optTime, problemOf, RecordProblem, reqUuid, type Obj } from "./field-readers";
import { orderTurns } from "./order-turns";
import type { ImportConversation, ParsedImport } from "./types";

// Dify Service API JSON: what GET /v1/conversations and GET /v1/messages answer.
//   {"conversations": [{<a GET /conversations item>, "messages": [<its GET /messages items>]}]}
// or one bare GET /messages page {"data": [...], "has_more": ..., "limit": ...} as one
// conversation. Messages may come in any order (the API pages newest first with first_id).

export type DifyApiOptions = { app_id?: string; end_user_id?: string | null };

export function parseDifyApi(doc: unknown, opts: DifyApiOptions = {}): ParsedImport {
  const out: ParsedImport = { format: "dify-api", source: "dify", conversations: [], memories: [], problems: [] };
  if (!isObj(doc)) {
    out.problems.push({ record: "file", message: "expected a JSON object with conversations or data" });
    return out;
  }
  const appId = opts.app_id ?? "dify";
  if (Array.isArray(doc.conversations)) {
    doc.conversations.forEach((c, i) => {
      const record = `conversations[${i}]`;
      try {
        if (!isObj(c)) throw new RecordProblem(undefined, "must be an object");
        const messages = c.messages;
        if (!Array.isArray(messages)) throw new RecordProblem("messages", "missing (an array of GET /messages items)");
        out.conversations.push(conversationOf(c, messages, record, appId, opts.end_user_id ?? null));
      } catch (e) {
        out.problems.push(problemOf(record, e));
      }
    });
    return out;
  }
  if (Array.isArray(doc.data)) {
    const record = "messages page";
    try {
      const first = doc.data.find(isObj);
      if (!first) throw new RecordProblem("data", "has no messages");
      const conversationId = reqUuid(first, "conversation_id", "data[0].conversation_id");
      out.conversations.push(conversationOf({ id: conversationId }, doc.data, record, appId, opts.end_user_id ?? null, "data"));
    } catch (e) {
      out.problems.push(problemOf(record, e));
    }
    return out;
  }
  out.problems.push({ record: "file", field: "conversations", message: "expected conversations (an array) or data (a GET /messages page)" });
  return out;
}

function conversationOf(
  c: Obj,
  messages: unknown[],
  record: string,
  appId: string,
  endUser: string | null,
  messagesField = "messages",
): ImportConversation {
  const id = reqUuid(c, "id");
  const name = optString(c, "name") ?? "";
  const introduction = optString(c, "introduction");
  const inputs = optObj(c, "inputs");
  const user = optString(c, "user") ?? optString(c, "from_end_user_session_id") ?? endUser;
  const turns = messages.map((m, j) => {
    const path = `${messagesField}[${j}]`;
    if (!isObj(m)) throw new RecordProblem(path, "must be an object");
    const cid = m.conversation_id;
    if (cid !== undefined && cid !== null && String(cid).toLowerCase() !== id) {
      throw new RecordProblem(`${path}.conversation_id`, `belongs to conversation ${String(cid)}, not ${id}`);
    }
    return difyMessageToTurn(m, path);
  });
  const config: Record<string, unknown> = { source: "dify" };
  if (introduction) config.introduction = introduction;
  if (inputs && Object.keys(inputs).length) config.inputs = inputs;
  const status = optString(c, "status");
  if (status && status !== "normal") config.status = status;
  return {
    externalId: id,
    record,
    id,
    app_id: appId,
    end_user_id: user ?? null,
    name: name.slice(0, 500),
    mode: "chat",
    model_config: config,
    created_at: optTime(c, "created_at"),
    updated_at: optTime(c, "updated_at"),
    turns: orderTurns(turns),
    allowMissingParents: true,
  };
}
