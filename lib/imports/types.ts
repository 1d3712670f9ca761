import type { MemoryType } from "../memories/schemas";
import type { MessageFileInput } from "../messages/schemas";

// What every parser produces: sources differ, the runner sees only these shapes.
// Client-safe (types only).

export const IMPORT_FORMATS = ["dify-api", "dify-db", "mem0", "openai", "chatgpt", "claude", "letta", "openai-agents", "memory-dir", "agentscope", "langgraph"] as const;
/** Formats read from an uploaded file (POST /imports/upload): text, SQLite or a zip of a directory. */
export const UPLOAD_FORMATS = ["chatgpt", "claude", "letta", "openai-agents", "memory-dir", "agentscope", "langgraph", "dify-api", "mem0", "openai"] as const;
export type UploadFormat = (typeof UPLOAD_FORMATS)[number];
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Which system the external ids belong to (ids are unique per source). */
export type ImportSource = "dify" | "mem0" | "openai" | "chatgpt" | "claude" | "letta" | "openai-agents" | "memory-dir" | "agentscope" | "langgraph";

/** A record that could not be imported: where (line or record) and which field. */
export type ImportProblem = { record: string; field?: string; message: string };

export type ImportTurn = {
  id: string;
  /** Where the turn sits in its record ("messages[4]"), for problems. */
  path?: string;
  /** Kept exactly as the source has it: undefined = the previous turn, null, UUID_NIL or an id. */
  parent_message_id?: string | null;
  query: string;
  answer: string;
  answer_tokens?: number;
  created_at?: string;
  files: MessageFileInput[];
  metadata?: Record<string, unknown> | null;
};

export type ImportConversation = {
  /** The source's own id (stored as the external id: re-imports skip or append). */
  externalId: string;
  /** Where it came from, for problems: "line 3", "conversations[2]". */
  record: string;
  /** The local id to use when the conversation is new. */
  id: string;
  app_id: string;
  end_user_id: string | null;
  name: string;
  mode: string;
  model_config: Record<string, unknown> | null;
  created_at?: string;
  updated_at?: string;
  turns: ImportTurn[];
  /** Parents that are not in the file (deleted upstream) are kept dangling, as the source has them. */
  allowMissingParents: boolean;
};

export type ImportMemoryEvent = {
  type: "create" | "update" | "archive";
  before: string | null;
  after: string | null;
  created_at?: string;
  reason: string;
};

export type ImportMemory = {
  externalId: string;
  record: string;
  user_id: string;
  app_id: string | null;
  memory_type: MemoryType;
  content: string;
  structured_data: Record<string, unknown> | null;
  status: "active" | "archived";
  created_at?: string;
  updated_at?: string;
  history: ImportMemoryEvent[];
};

export type ParsedImport = {
  format: ImportFormat;
  source: ImportSource;
  conversations: ImportConversation[];
  memories: ImportMemory[];
  /** Records that failed to parse: each counts as failed. */
  problems: ImportProblem[];
  /** Records left out on purpose (an empty conversation, a row that does not decode): counted as skipped. */
  skipped?: number;
  /** What the source holds that Memscope keeps only in metadata or leaves out, by reason ("letta_image", ...). */
  unrepresented?: Record<string, number>;
};

export type ImportCounts = {
  conversations: number;
  turns: number;
  memories: number;
  skipped: number;
  failed: number;
};

export const emptyCounts = (): ImportCounts => ({ conversations: 0, turns: 0, memories: 0, skipped: 0, failed: 0 });
