import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { sha256Hex } from "./digest";
import type { ChatMessage, ChatPart, PromptNode } from "./captured-shapes";
import { systemJson, systemNodeIdOf } from "./system-instructions";

// Captured prompts, each message stored once per conversation (migration
// 20261129060000_captured_messages). An agent resends its whole history with every call:
// call n+1's input begins with call n's input and answer. A node is one exchange: the
// messages up to and including an assistant message (a question and its answer, or tool
// results and the answer after them; a chain's last node may end without one). Its id
// digests its parent's id and its JSON text (an array of messages), so the chain of a span's
// input followed by its output shares its beginning with every earlier call of the same
// history, and storing a span writes only the nodes not stored yet (its new exchange, in the
// usual case: one row a call, not one a message, which halved the rows' headers and primary
// key, issue 35's bytes per span). A node's position is its first message's place in the
// chain. Rows stored before (one message each, a JSON object) are read the same way. A span
// keeps its chain's last node and how many of the chain's messages are input and output.
//
// The nodes of a conversation are written whole chains at a time in one transaction and
// deleted only with their conversation, so a stored node's ancestors are stored: finding
// how much of a chain is stored needs only a few probes (storePromptNodes).

const asUuid = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

/** A node's id: the same digest the migration computes in SQL. */
export const nodeId = (parent: string | null, json: string) => asUuid(sha256Hex(`${parent ?? ""}:${sha256Hex(json)}`));
export const systemNodeId = (json: string) => asUuid(sha256Hex(`system:${sha256Hex(json)}`));

export type { PromptNode } from "./captured-shapes";

/**
 * A message of the usual shape, `{"role":R,"parts":[{"type":"text","content":C}]}` with exactly
 * those keys in that order, is stored as `[R,C]` (~38 bytes less a message, issue 35's bytes per
 * span); expandMessage gives back the same object, so the JSON text as sent. Any other message
 * (tool calls, several parts, other keys or order) is stored as it is. Its node id digests the
 * message as sent, so a history stored before this form is found stored.
 */
function compactMessage(m: ChatMessage): unknown {
  const keys = Object.keys(m);
  if (keys.length !== 2 || keys[0] !== "role" || keys[1] !== "parts" || typeof m.role !== "string" || !Array.isArray(m.parts) || m.parts.length !== 1) return m;
  const part = m.parts[0] as Record<string, unknown>;
  const pk = Object.keys(part);
  if (pk.length !== 2 || pk[0] !== "type" || pk[1] !== "content" || part.type !== "text" || typeof part.content !== "string") return m;
  return [m.role, part.content];
}

/** A stored message back as sent (a `[role, content]` pair is compactMessage's form). */
export function expandMessage(stored: unknown): ChatMessage {
  if (Array.isArray(stored) && stored.length === 2 && typeof stored[0] === "string" && typeof stored[1] === "string") {
    return { role: stored[0], parts: [{ type: "text", content: stored[1] }] } as ChatMessage;
  }
  return stored as ChatMessage;
}

/** A span's prompt as nodes: its input then output messages as a chain, and its system instructions' node. */
export type PromptChain = {
  conversationId: string;
  nodes: PromptNode[];
  system: PromptNode | null;
  promptNode: string | null;
  inputCount: number;
  outputCount: number;
  /** Each output message's finish_reason taken off its node, as `position:reason` (chainedOutput); null when none was. */
  finishReasons: (string | null)[] | null;
};

/**
 * An output message as the next call resends it: without its finish_reason, which an input
 * message does not carry (issue 35: stored with it, the answer was a node of its own and the
 * next call's history branched off beside it, three nodes a call instead of two). What was
 * taken off is `position:reason`, the key's place among the message's keys (Traceloop puts it
 * between role and parts), so putting it back (withFinishReason) gives the JSON text as sent.
 */
function chainedOutput(m: ChatMessage): { message: ChatMessage; finishReason: string | null } {
  if (typeof m.finish_reason !== "string") return { message: m, finishReason: null };
  const { finish_reason, ...rest } = m;
  return { message: rest as ChatMessage, finishReason: `${Object.keys(m).indexOf("finish_reason")}:${finish_reason}` };
}

function withFinishReason(m: ChatMessage, taken: string): ChatMessage {
  const colon = taken.indexOf(":");
  const entries = Object.entries(m);
  entries.splice(Number(taken.slice(0, colon)), 0, ["finish_reason", taken.slice(colon + 1)]);
  return Object.fromEntries(entries) as ChatMessage;
}

export function promptChain(conversationId: string, system: ChatPart[] | null, input: ChatMessage[], output: ChatMessage[]): PromptChain {
  return promptChainFrom(conversationId, system, input, output).chain;
}

/** Exchanges of a chain's beginning: their nodes and how many messages they cover (each closed by an assistant message). */
export type ClosedNodes = { nodes: readonly PromptNode[]; covered: number };

/**
 * promptChain, starting from `known`: the closed exchanges of the input's first messages, as
 * an earlier call with the same first messages left them (span-history.ts; a node closed by an
 * assistant message is cut the same in every longer list, and its id digests only its messages
 * and its parent's). `closed`: the same for this input, for the next call.
 */
export function promptChainFrom(
  conversationId: string,
  system: ChatPart[] | null,
  input: ChatMessage[],
  output: ChatMessage[],
  known?: ClosedNodes,
): { chain: PromptChain; closed: ClosedNodes } {
  const reuse = known && known.covered <= input.length ? known : undefined;
  const nodes: PromptNode[] = reuse ? [...reuse.nodes] : [];
  let parent: string | null = nodes.length ? nodes[nodes.length - 1].id : null;
  const outputs = output.map(chainedOutput);
  const finishReasons = outputs.some((o) => o.finishReason !== null) ? outputs.map((o) => o.finishReason) : null;
  const messages = [...input, ...outputs.map((o) => o.message)];
  let closedCount = nodes.length;
  let covered = reuse?.covered ?? 0;
  // One node an exchange: cut after each assistant message (the same cuts in every call of a history).
  for (let start = reuse?.covered ?? 0; start < messages.length; ) {
    let end = start;
    while (end < messages.length - 1 && messages[end].role !== "assistant") end++;
    const exchange = messages.slice(start, end + 1);
    const json = JSON.stringify(exchange);
    const id = nodeId(parent, json);
    nodes.push({ id, parent, position: start, json, body: JSON.stringify(exchange.map(compactMessage)) });
    if (end < input.length && messages[end].role === "assistant") {
      closedCount = nodes.length;
      covered = end + 1;
    }
    parent = id;
    start = end + 1;
  }
  return {
    chain: {
      conversationId,
      nodes,
      system: system === null ? null : { id: systemNodeIdOf(system, systemNodeId), parent: null, position: 0, json: systemJson(system), body: systemJson(system) },
      promptNode: parent,
      inputCount: input.length,
      outputCount: output.length,
      finishReasons,
    },
    closed: reuse && closedCount === reuse.nodes.length ? reuse : { nodes: nodes.slice(0, closedCount), covered },
  };
}

/** Positions probed of a chain of `n` nodes: the last, then 2, 3, 5, 9 ... from the end, and the first. */
function probePositions(n: number): number[] {
  if (!n) return [];
  const out = new Set<number>([n - 1]);
  for (let step = 1; n - 1 - step > 0; step *= 2) out.add(n - 1 - step);
  out.add(0);
  return [...out];
}

/**
 * Writes the nodes of the chains not stored yet, in statements of about `chunkBytes` of
 * JSON. Probes first (a few ids per chain, no text): the deepest stored probe tells that its
 * ancestors are stored too, so only the nodes below it are sent (ON CONFLICT skips the few
 * between two probes that were). Run inside the transaction that locked the conversations.
 * A chain one of whose nodes is another chain's last (the call before it, in the same request)
 * needs no probe: that chain writes what is missing up to there. The others probe their last
 * two nodes first (the call before was stored: the usual case), and only the chains with
 * neither stored probe further (section 71: ~1.5 probes a span where every chain probed ~5).
 */
/** `write`: where the inserts go (the same transaction; lib/db/write-behind.ts sends them without waiting). */
export async function storePromptNodes(tx: ProjectSql, chains: PromptChain[], chunkBytes: number, probesPerStatement = Number.POSITIVE_INFINITY, write: ProjectSql = tx): Promise<{ nodes: number }> {
  const deepest = new Map<number, number>();
  const systemStored = new Set<number>();
  const lastOf = new Map<string, number>();
  chains.forEach((ch, c) => {
    if (ch.nodes.length) lastOf.set(`${ch.conversationId}:${ch.nodes[ch.nodes.length - 1].id}`, c);
  });
  const probing: number[] = [];
  chains.forEach((ch, c) => {
    for (let pos = ch.nodes.length - 2; pos >= 0; pos--) {
      const other = lastOf.get(`${ch.conversationId}:${ch.nodes[pos].id}`);
      if (other !== undefined && other !== c) {
        deepest.set(c, pos);
        break;
      }
    }
    if (!deepest.has(c) && ch.nodes.length) probing.push(c);
  });
  // Probes as [chain, position] (-1: its system instructions' node).
  const first: [number, number][] = chains.flatMap((ch, c) => (ch.system ? [[c, -1] as [number, number]] : []));
  for (const c of probing) for (const pos of [chains[c].nodes.length - 1, chains[c].nodes.length - 2]) if (pos >= 0) first.push([c, pos]);
  const found = await probeNodes(tx, chains, first, probesPerStatement);
  const further: [number, number][] = [];
  const hit = new Set(found.filter(([, pos]) => pos >= 0).map(([c]) => c));
  for (const c of probing) if (!hit.has(c)) for (const pos of probePositions(chains[c].nodes.length)) if (pos < chains[c].nodes.length - 2) further.push([c, pos]);
  found.push(...(await probeNodes(tx, chains, further, probesPerStatement)));
  for (const [c, pos] of found) {
    if (pos === -1) systemStored.add(c);
    else deepest.set(c, Math.max(deepest.get(c) ?? -1, pos));
  }
  // Each node once per request (chains of one conversation share their beginnings).
  const rows = new Map<string, string>();
  const add = (cid: string, n: PromptNode) => {
    const key = `${cid}:${n.id}`;
    if (!rows.has(key)) rows.set(key, `{"c":"${cid}","i":"${n.id}","p":${n.parent ? `"${n.parent}"` : "null"},"n":${n.position},"b":${n.body}}`);
  };
  chains.forEach((ch, c) => {
    for (const n of ch.nodes.slice((deepest.get(c) ?? -1) + 1)) add(ch.conversationId, n);
    if (ch.system && !systemStored.has(c)) add(ch.conversationId, ch.system);
  });
  for (const chunk of jsonChunks([...rows.values()], chunkBytes)) {
    await write.query(
      `INSERT INTO captured_messages (project_id, conversation_id, id, parent_id, position, body)
       SELECT $1, u.c, u.i, u.p, u.n, u.b FROM json_to_recordset($2::json) AS u(c uuid, i uuid, p uuid, n int, b json)
       ON CONFLICT DO NOTHING`,
      [tx.projectId, chunk],
    );
  }
  return { nodes: rows.size };
}

/** Which of the probed nodes are stored: each distinct node asked once (chains of one conversation share some). */
async function probeNodes(tx: ProjectSql, chains: PromptChain[], probes: [number, number][], probesPerStatement: number): Promise<[number, number][]> {
  const byNode = new Map<string, { cid: string; id: string; asked: [number, number][] }>();
  for (const [c, pos] of probes) {
    const ch = chains[c];
    const id = pos === -1 ? ch.system!.id : ch.nodes[pos].id;
    const key = `${ch.conversationId}:${id}`;
    const e = byNode.get(key);
    if (e) e.asked.push([c, pos]);
    else byNode.set(key, { cid: ch.conversationId, id, asked: [[c, pos]] });
  }
  const nodes = [...byNode.values()];
  const found: [number, number][] = [];
  // On the embedded database in several statements (each holds the server's thread while it runs).
  for (let at = 0; at < nodes.length; at += probesPerStatement) {
    const part = nodes.slice(at, at + probesPerStatement);
    const rows = await tx.query<{ i: number }>(
      // One probe a node, whatever the planner's row estimates (store-captures.ts lookUpStates says why).
      `SELECT u.i FROM unnest($2::uuid[], $3::uuid[], $4::int[]) AS u(cid, id, i)
         CROSS JOIN LATERAL (SELECT 1 FROM captured_messages m WHERE m.project_id = $1 AND m.conversation_id = u.cid AND m.id = u.id LIMIT 1) m`,
      [tx.projectId, part.map((p) => p.cid), part.map((p) => p.id), part.map((_, i) => at + i)],
    );
    for (const { i } of rows) found.push(...nodes[i].asked);
  }
  return found;
}

/** JSON texts as JSON arrays of about `bytes` each (a larger text is an array of its own). */
function jsonChunks(texts: string[], bytes: number): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  let size = 0;
  for (const t of texts) {
    if (cur.length && size + t.length > bytes) {
      out.push(`[${cur.join(",")}]`);
      cur = [];
      size = 0;
    }
    cur.push(t);
    size += t.length + 1;
  }
  if (cur.length) out.push(`[${cur.join(",")}]`);
  return out;
}

export type CapturedPrompt = { system_instructions: ChatPart[] | null; input_messages: ChatMessage[]; output_messages: ChatMessage[] };

/**
 * The prompts of captured spans, read back from their nodes: the chain from each span's
 * prompt node up to its root (positions strictly decreasing, so a damaged chain cannot
 * loop), its messages split into input and output. By the captured span's turn (its
 * message id; a span's turn id derives from its trace and span ids, messageIdOf); a turn not captured is absent.
 */
export async function loadCapturedPrompts(sql: Pick<ProjectSql, "query" | "projectId">, messageIds: string[]): Promise<Map<string, CapturedPrompt>> {
  const out = new Map<string, CapturedPrompt>();
  if (!messageIds.length) return out;
  const rows = await sql.query<{ k: string; position: number; body: unknown; input_count: number; finish_reasons: (string | null)[] | null; is_system: boolean }>(
    `WITH RECURSIVE s AS (
       SELECT s.message_id::text AS k, s.conversation_id, s.prompt_node, s.system_node, s.input_count, s.finish_reasons
         FROM captured_spans s WHERE s.project_id = $1 AND s.message_id = ANY($2::uuid[])),
     chain AS (
       SELECT s.k, m.conversation_id, m.parent_id, m.position, m.body FROM s
         JOIN captured_messages m ON m.project_id = $1 AND m.conversation_id = s.conversation_id AND m.id = s.prompt_node
       UNION ALL
       SELECT c.k, m.conversation_id, m.parent_id, m.position, m.body FROM chain c
         JOIN captured_messages m ON m.project_id = $1 AND m.conversation_id = c.conversation_id AND m.id = c.parent_id AND m.position < c.position)
     SELECT s.k, -1 AS position, m.body, s.input_count, NULL::json AS finish_reasons, true AS is_system FROM s
       LEFT JOIN captured_messages m ON m.project_id = $1 AND m.conversation_id = s.conversation_id AND m.id = s.system_node
     UNION ALL
     SELECT c.k, c.position, c.body, s.input_count, s.finish_reasons, false FROM chain c JOIN s ON s.k = c.k
     ORDER BY 1, 2`,
    [sql.projectId, [...new Set(messageIds)]],
  );
  for (const r of rows) {
    const p = out.get(r.k) ?? { system_instructions: null, input_messages: [], output_messages: [] };
    if (r.is_system) p.system_instructions = (r.body as ChatPart[] | null) ?? null;
    else {
      // A node is an exchange (an array of messages); one stored before exchanges were nodes is a message.
      const messages = Array.isArray(r.body) ? (r.body as unknown[]).map(expandMessage) : [r.body as ChatMessage];
      messages.forEach((m, j) => {
        const position = r.position + j;
        if (position < r.input_count) p.input_messages.push(m);
        else {
          // The finish_reason kept on the span goes back where it was.
          const taken = r.finish_reasons?.[position - r.input_count] ?? null;
          p.output_messages.push(taken === null ? m : withFinishReason(m, taken));
        }
      });
    }
    out.set(r.k, p);
  }
  return out;
}

export async function loadCapturedPrompt(sql: Pick<ProjectSql, "query" | "projectId">, messageId: string): Promise<CapturedPrompt | null> {
  return (await loadCapturedPrompts(sql, [messageId])).get(messageId) ?? null;
}
