// Every cached answer's key, from one factory: a key says which data it holds, so one answer is
// cached once (/models had two keys, and a saved preset refreshed only one of them) and a write
// invalidates by prefix what it changed.
//
// Roots and what invalidating them refreshes:
//   auth           the session and project state, invitation links
//   conversations  lists, facets, one conversation, a user's conversations (not their turns:
//                  a status change must not refetch 5 000 messages)
//   turns          messages, threads, history windows and picker turns of conversations, and
//                  the turns captured over OTLP with their sent-vs-modelled comparisons
//   models         the model rows every picker reads and the preset settings they come from
//   memories       lists, pages, history, relations, review queues, metrics, memory.md exports
//   embeddings     the embedding index status
//   imports        jobs and the Dify database's apps
//   node-memory    Dify's per-node documents of a conversation
//   project        keys, members, invitations, audit
//   inspect        offloaded contents of a window run (immutable)
//   retention      a project's retention rules (with their last runs) and each rule's preview
//   replay         replayed turns (a replay reads the past: memories and turns written later
//                  change only its "changed since" marks, refetched with memories' writes)
//   evals          eval sets, their cases and runs, run cases, comparisons
//   incidents      the inbox's lists, its summary (chart, precision, the navigation's badge)
//                  and a conversation's incidents (its turns' marks)

import type { IncidentFilters } from "./ui/incident-model";

export type ConversationFilters = { q: string; app_id: string; user_id: string; status: "active" | "archived" | "all" };
export type HistoryParams = { leaf: string | null; model: string; max_token_limit: number; message_limit: number | null };
export type NodeWindowParams = { model: string; max_token_limit: number; current_message_id: string | null };
export type MemoryFilters = {
  memory_type: string;
  status: "active" | "archived" | "all";
  q: string;
  min_importance: number | null;
  max_importance: number | null;
  sort: string;
  order: "asc" | "desc";
};

export const keys = {
  auth: {
    all: ["auth"] as const,
    state: ["auth", "state"] as const,
    invitation: (id: string) => ["auth", "invitation", id] as const,
  },
  conversations: {
    all: ["conversations"] as const,
    list: (f: ConversationFilters) => ["conversations", "list", f] as const,
    facets: ["conversations", "facets"] as const,
    one: (id: string) => ["conversations", "one", id] as const,
    /** A user's newest conversations: the inspector's picker and the review page's extractor read the same list. */
    ofUser: (user: string) => ["conversations", "of-user", user] as const,
  },
  turns: {
    all: ["turns"] as const,
    messages: (id: string) => ["turns", "messages", id] as const,
    thread: (id: string, leaf: string | null) => ["turns", "thread", id, leaf] as const,
    history: (id: string, p: HistoryParams, format: "messages" | "text") => ["turns", "history", id, p, format] as const,
    picker: (id: string) => ["turns", "picker", id] as const,
    captures: (id: string) => ["turns", "captures", id] as const,
    sentVsModelled: (id: string, messageId: string | null) => ["turns", "captures", id, messageId] as const,
  },
  models: {
    all: ["models"] as const,
    rows: ["models", "rows"] as const,
    presets: ["models", "presets"] as const,
  },
  memories: {
    all: ["memories"] as const,
    users: ["memories", "users"] as const,
    lists: ["memories", "list"] as const,
    list: (user: string, f: MemoryFilters) => ["memories", "list", user, f] as const,
    one: (id: string) => ["memories", "one", id] as const,
    history: (id: string) => ["memories", "history", id] as const,
    relations: (id: string) => ["memories", "relations", id] as const,
    accesses: (id: string) => ["memories", "accesses", id] as const,
    origin: (id: string) => ["memories", "origin", id] as const,
    ofConversation: (conversationId: string) => ["memories", "conversation", conversationId] as const,
    review: (user: string, kind: string, status: "open" | "resolved") => ["memories", "review", user, kind, status] as const,
    metrics: (user: string) => ["memories", "metrics", user] as const,
    md: (user: string, file: string) => ["memories", "md", user, file] as const,
    search: (user: string, body: unknown) => ["memories", "search", user, body] as const,
    mergeSuggestion: (ids: readonly string[]) => ["memories", "merge-suggestion", ids] as const,
  },
  embeddings: {
    status: ["embeddings", "status"] as const,
  },
  imports: {
    all: ["imports"] as const,
    jobs: ["imports", "jobs"] as const,
    job: (id: string) => ["imports", "job", id] as const,
    difyApps: ["imports", "dify-apps"] as const,
  },
  nodeMemory: {
    of: (conversationId: string) => ["node-memory", conversationId] as const,
    list: (conversationId: string) => ["node-memory", conversationId, "list"] as const,
    doc: (conversationId: string, nodeId: string) => ["node-memory", conversationId, "doc", nodeId] as const,
    histories: (conversationId: string, nodeId: string) => ["node-memory", conversationId, "history", nodeId] as const,
    history: (conversationId: string, nodeId: string, p: NodeWindowParams) => ["node-memory", conversationId, "history", nodeId, p] as const,
  },
  project: {
    all: ["project"] as const,
    keys: ["project", "keys"] as const,
    members: ["project", "members"] as const,
    invitations: ["project", "invitations"] as const,
    audit: ["project", "audit"] as const,
  },
  profiles: {
    all: ["profiles"] as const,
    list: ["profiles", "list"] as const,
    one: (appId: string) => ["profiles", "one", appId] as const,
  },
  retention: {
    all: ["retention"] as const,
    rules: ["retention", "rules"] as const,
    preview: (id: string) => ["retention", "preview", id] as const,
  },
  replay: {
    all: ["replay"] as const,
    turn: (body: unknown) => ["replay", "turn", body] as const,
  },
  evals: {
    all: ["evals"] as const,
    sets: ["evals", "sets"] as const,
    set: (id: string) => ["evals", "set", id] as const,
    cases: (setId: string) => ["evals", "cases", setId] as const,
    runs: (setId: string) => ["evals", "runs", setId] as const,
    runCases: (runId: string) => ["evals", "run-cases", runId] as const,
    runCase: (runId: string, caseId: string) => ["evals", "run-case", runId, caseId] as const,
    compare: (runId: string, baseId: string) => ["evals", "compare", runId, baseId] as const,
  },
  incidents: {
    all: ["incidents"] as const,
    list: (f: IncidentFilters) => ["incidents", "list", f] as const,
    summary: (days: number) => ["incidents", "summary", days] as const,
    ofConversation: (conversationId: string) => ["incidents", "conversation", conversationId] as const,
  },
  inspect: {
    offloaded: (ref: string) => ["inspect", "offloaded", ref] as const,
  },
};
