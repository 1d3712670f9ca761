import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { MemscopeClient } from "../../sdk/typescript/src/index";
import { MEMORY_TYPES } from "../memories/schemas";

// Memscope as an MCP server. Every tool is a call of the HTTP API through the typed client,
// with the caller's key: access, project, validation, the access log and history all come
// from the API, exactly as for any other API call. The HTTP transport (/api/mcp) points the
// client at this server; the stdio entry (bin/memscope-mcp.mjs) at a running Memscope.

type ApiAnswer = { data?: unknown; error?: unknown; response: Response };

const ZUserId = z.string().min(1).max(200).describe("The end user whose memories these are (your app's user id).");
const ZId = z.string().uuid();
const ZTypes = z.array(z.enum(MEMORY_TYPES)).min(1).optional().describe("Only these memory types (preference, fact, pattern, skill).");

/** An API answer as a tool result: the JSON data, or the API's error (code, message, fields) flagged isError. */
async function asResult(call: Promise<ApiAnswer>, pick?: (data: any) => unknown): Promise<CallToolResult> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) {
    const e = (error as { error?: { code: string; message: string; details?: { field?: string; message: string }[] } })?.error;
    const fields = (e?.details ?? []).filter((d) => d.field).map((d) => `${d.field}: ${d.message}`);
    const text = e ? `${response.status} ${e.code}: ${e.message}${fields.length ? ` (${fields.join("; ")})` : ""}` : `${response.status} ${response.statusText}`;
    return { isError: true, content: [{ type: "text", text }] };
  }
  const out = pick ? pick(data) : data;
  return { content: [{ type: "text", text: JSON.stringify(out ?? null, null, 2) }] };
}

export function createMemscopeMcpServer(api: MemscopeClient, version = "1"): McpServer {
  const server = new McpServer(
    { name: "memscope", version },
    { instructions: "Memscope holds an agent's long-term memories per end user and its conversation history. Search before answering, save what the user states about themselves, and read history to see what the agent would remember." },
  );

  server.registerTool(
    "search_memories",
    {
      title: "Search memories",
      description:
        "Finds a user's memories most relevant to a query. Each result has its score and breakdown: score = 0.6*cosine + 0.2*time_decay + 0.2*importance. Marks returned memories as accessed (with a key holding write, unless dry_run) and is logged. Changes nothing else.",
      inputSchema: {
        user_id: ZUserId,
        query: z.string().min(1).max(5000).describe("What to look for, in plain words."),
        k: z.number().int().min(1).max(100).optional().describe("How many results (default 10)."),
        memory_types: ZTypes,
        min_score: z.number().min(-10).max(10).optional().describe("Leave out results scoring below this."),
        dry_run: z.boolean().optional().describe("true: do not mark results as accessed."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ user_id, ...body }) => asResult(api.POST("/users/{user_id}/memories/search", { params: { path: { user_id } }, body })),
  );

  server.registerTool(
    "save_memory",
    {
      title: "Save a memory",
      description:
        "Saves one memory for a user, deduplicated: answers the memory and dedupe.action: created (new row), duplicate (the same text existed: its confidence rose), replaced or merged (a chat model judged a near duplicate), kept_both (a near duplicate was kept and queued for review).",
      inputSchema: {
        user_id: ZUserId,
        memory_type: z.enum(MEMORY_TYPES).describe("preference (likes, settings), fact (about the user), pattern (recurring behaviour), skill (how to do something)."),
        content: z.string().min(1).max(20_000).describe("One self-contained statement, e.g. 'Prefers window seats on long flights'."),
        importance_score: z.number().min(0).max(1).optional().describe("0..1 (default 0.5)."),
        source_session_id: ZId.optional().describe("The conversation this came from."),
        structured_data: z.record(z.string(), z.unknown()).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ user_id, ...body }) => asResult(api.POST("/users/{user_id}/memories", { params: { path: { user_id } }, body })),
  );

  server.registerTool(
    "update_memory",
    {
      title: "Update a memory",
      description:
        "Edits a memory. Give the version you read: if it changed since, nothing is written and the error names the current version. The previous text stays in the memory's history.",
      inputSchema: {
        id: ZId.describe("The memory's id."),
        version: z.number().int().min(1).describe("The version you read (from search_memories or list_memories)."),
        content: z.string().min(1).max(20_000).optional(),
        memory_type: z.enum(MEMORY_TYPES).optional(),
        importance_score: z.number().min(0).max(1).optional(),
        reason: z.string().max(2000).optional().describe("Why, for the history."),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ id, ...body }) => asResult(api.PATCH("/memories/{id}", { params: { path: { id } }, body })),
  );

  server.registerTool(
    "archive_memory",
    {
      title: "Archive a memory",
      description: "Archives a memory: it is no longer retrieved. Nothing is deleted; a person can restore it, and the history keeps why.",
      inputSchema: { id: ZId.describe("The memory's id."), reason: z.string().max(2000).optional().describe("Why, for the history.") },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ id, reason }) => asResult(api.POST("/memories/{id}/archive", { params: { path: { id } }, body: reason ? { reason } : {} })),
  );

  server.registerTool(
    "list_memories",
    {
      title: "List memories",
      description: "Lists a user's memories, newest change first, 50 at a time; pass next_cursor back for more. Read only.",
      inputSchema: {
        user_id: ZUserId,
        memory_type: z.enum(MEMORY_TYPES).optional(),
        status: z.enum(["active", "archived", "all"]).optional().describe("Default active."),
        q: z.string().max(500).optional().describe("Words the content must contain (word prefixes)."),
        limit: z.number().int().min(1).max(500).optional(),
        cursor: z.string().max(500).optional().describe("next_cursor of the previous page."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ user_id, ...query }) => asResult(api.GET("/users/{user_id}/memories", { params: { path: { user_id }, query } })),
  );

  server.registerTool(
    "get_history",
    {
      title: "Get conversation history",
      description:
        "The history an agent would send for a conversation under Dify's token-buffer memory: the current thread (or the thread ending at leaf_message_id), newest turns kept within max_token_limit. Answers the messages, which turns were dropped, the token total, model and encoding. Read only.",
      inputSchema: {
        conversation_id: ZId,
        max_token_limit: z.number().int().min(0).max(10_000_000).optional().describe("Token budget (default 2000)."),
        message_limit: z.number().int().optional().describe("At most this many recent rows are read (default and cap 500)."),
        model: z.string().max(100).optional().describe("Tokenizer of this model (default gpt-4o)."),
        leaf_message_id: ZId.optional().describe("Follow the branch ending here instead of the newest."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ conversation_id, ...query }) =>
      asResult(api.GET("/conversations/{id}/history", { params: { path: { id: conversation_id }, query } })),
  );

  server.registerTool(
    "get_context",
    {
      title: "Get the assembled prompt",
      description:
        "Assembles what the model would receive: system prompt + the user's most relevant memories + the conversation's history (token buffer) + the query, fitted to the model's context window. Answers the messages, the tokens of each section, and everything cut with why. The memory retrieval is logged.",
      inputSchema: {
        user_id: ZUserId,
        query: z.string().min(1).max(200_000),
        conversation_id: ZId.optional(),
        system_prompt: z.string().max(200_000).optional(),
        model: z.string().max(100).optional().describe("Default gpt-4o."),
        max_history_tokens: z.number().int().min(0).max(10_000_000).optional().describe("Token budget for history (default 2000)."),
        memories: z.number().int().min(0).max(100).optional().describe("How many memories to inject (default 5; 0 = none)."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ memories, max_history_tokens, ...rest }) =>
      asResult(
        api.POST("/context", {
          body: {
            ...rest,
            strategy: { type: "token_buffer", max_token_limit: max_history_tokens ?? 2000 },
            memory: memories === 0 ? { enabled: false } : { k: memories ?? 5 },
          },
        }),
      ),
  );

  server.registerTool(
    "add_turns",
    {
      title: "Add turns to a conversation",
      description:
        "Appends user/assistant turns to a conversation, oldest first, all or nothing. A turn without parent_message_id goes under the newest turn; give a parent to branch (a regenerated answer). Answers the stored turns' ids.",
      inputSchema: {
        conversation_id: ZId,
        turns: z
          .array(
            z.object({
              query: z.string().max(1_000_000).describe("The user's message."),
              answer: z.string().max(1_000_000).describe("The assistant's answer."),
              parent_message_id: ZId.nullable().optional(),
            }),
          )
          .min(1)
          .max(1000),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ conversation_id, turns }) =>
      asResult(
        api.POST("/conversations/{id}/messages/batch", {
          params: { path: { id: conversation_id } },
          body: { messages: turns, return: "minimal" },
        }),
      ),
  );

  server.registerTool(
    "list_incidents",
    {
      title: "List memory incidents",
      description:
        "Lists turns where memory failed, newest detected first, 50 at a time (pass next_cursor back for more): missed_memory (a memory that answers the user's message was not in the prompt), restated_memory (the user repeated a memory that was not in the prompt), stale_memory (the user corrected a memory that was in the prompt), dropped_reference (the user referred back to a turn the history window had dropped), over_context_window. Each has a plain summary and the evidence that fired its rule. Read only.",
      inputSchema: {
        kind: z.string().max(200).optional().describe("missed_memory, restated_memory, stale_memory, dropped_reference or over_context_window; several separated by commas."),
        status: z.string().max(200).optional().describe("open, acknowledged, resolved or false_positive; several separated by commas."),
        severity: z.string().max(100).optional().describe("high, medium or low; several separated by commas."),
        user_id: ZUserId.optional(),
        app_id: z.string().min(1).max(200).optional(),
        conversation_id: ZId.optional(),
        limit: z.number().int().min(1).max(200).optional(),
        cursor: z.string().max(500).optional().describe("next_cursor of the previous page."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (query) => asResult(api.GET("/incidents", { params: { query } })),
  );

  server.registerTool(
    "run_eval",
    {
      title: "Run a memory eval set",
      description:
        "Runs a named eval set (questions with known right answers) against the memories under a retrieval configuration and stores the run: answers recall@k, precision@k, MRR, nDCG@k and hit rate with 95% intervals, and the cases that missed. A read of the memories: nothing is logged or marked accessed. With compare_to, also the paired comparison against that run (what broke, whether it is more than noise).",
      inputSchema: {
        set: z.string().min(1).max(200).describe("The eval set's name."),
        k: z.number().int().min(1).max(100).optional().describe("How many memories each question retrieves (default 10)."),
        weights: z.object({ similarity: z.number().min(0).max(10).optional(), recency: z.number().min(0).max(10).optional(), importance: z.number().min(0).max(10).optional() }).optional(),
        min_score: z.number().min(-10).max(10).optional(),
        memory_types: ZTypes,
        as_of: z.string().max(64).optional().describe("Evaluate the memory as it was at this ISO 8601 instant."),
        compare_to: ZId.optional().describe("A run id to compare this run against."),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ set, compare_to, ...config }) => {
      const sets = await api.GET("/evals/sets", { params: { query: { name: set } } });
      const found = sets.data?.data[0];
      if (!sets.response.ok || !found) return sets.response.ok ? { isError: true, content: [{ type: "text", text: `404 not_found: no eval set named "${set}"` }] } : asResult(Promise.resolve(sets));
      const run = await api.POST("/evals/sets/{id}/runs", { params: { path: { id: found.id } }, body: { config: { status: "active", ...config, k: config.k ?? 10 } } });
      if (!run.response.ok || !run.data) return asResult(Promise.resolve(run));
      const failed = await api.GET("/evals/runs/{id}/cases", { params: { path: { id: run.data.id }, query: { only: "failed" } } });
      const comparison = compare_to ? await api.GET("/evals/runs/{id}/compare", { params: { path: { id: run.data.id }, query: { base: compare_to } } }) : null;
      if (comparison && (!comparison.response.ok || !comparison.data)) return asResult(Promise.resolve(comparison));
      return asResult(Promise.resolve({ data: { run: run.data, failed_cases: failed.data?.data ?? [], comparison: comparison?.data ?? null }, response: run.response }));
    },
  );

  server.registerResource(
    "memory-md",
    new ResourceTemplate("memscope://users/{user_id}/memory.md", { list: undefined }),
    { title: "A user's memory.md", description: "The user's preferences, facts and patterns as Markdown.", mimeType: "text/markdown" },
    async (uri, { user_id }) => {
      const { data, error, response } = await api.GET("/users/{user_id}/memory-md", {
        params: { path: { user_id: String(user_id) }, query: { file: "memory" } },
        parseAs: "text",
      });
      if (error !== undefined || !response.ok) throw new Error(`memory.md of ${user_id}: ${response.status}`);
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: String(data) }] };
    },
  );

  server.registerResource(
    "conversation-thread",
    new ResourceTemplate("memscope://conversations/{id}/thread", { list: undefined }),
    { title: "A conversation's current thread", description: "The newest thread of a conversation as text (Human:/Assistant:).", mimeType: "text/plain" },
    async (uri, { id }) => {
      const { data, error, response } = await api.GET("/conversations/{id}/history", {
        params: { path: { id: String(id) }, query: { format: "text", max_token_limit: 10_000_000 } },
      });
      if (error !== undefined || !response.ok) throw new Error(`conversation ${id}: ${response.status}`);
      return { contents: [{ uri: uri.href, mimeType: "text/plain", text: data?.text ?? "" }] };
    },
  );

  return server;
}
