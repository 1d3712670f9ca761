import type { Message } from "./schemas";

export type MessageRow = {
  id: string;
  conversation_id: string;
  parent_message_id: string | null;
  tree_parent_id: string | null;
  query: string;
  answer: string;
  answer_tokens: number;
  query_tokens_o200k: number;
  answer_tokens_o200k: number;
  query_tokens_cl100k: number;
  answer_tokens_cl100k: number;
  metadata: Record<string, unknown> | null;
  created_at: Date | string;
};

export type FileRow = {
  message_id: string;
  type: string;
  transfer_method: string;
  url: string | null;
  upload_file_id: string | null;
  belongs_to: string;
};

export function serializeMessage(m: MessageRow, files: FileRow[]): Message {
  return {
    id: m.id,
    conversation_id: m.conversation_id,
    parent_message_id: m.parent_message_id,
    tree_parent_id: m.tree_parent_id,
    query: m.query,
    answer: m.answer,
    answer_tokens: m.answer_tokens,
    tokens: {
      o200k_base: { query: m.query_tokens_o200k, answer: m.answer_tokens_o200k },
      cl100k_base: { query: m.query_tokens_cl100k, answer: m.answer_tokens_cl100k },
    },
    files: files.map((f) => ({
      type: f.type,
      transfer_method: f.transfer_method,
      url: f.url,
      upload_file_id: f.upload_file_id,
      belongs_to: f.belongs_to,
    })),
    metadata: m.metadata ?? null,
    created_at: new Date(m.created_at).toISOString(),
  };
}

export const MESSAGE_COLUMNS = `id, conversation_id, parent_message_id, tree_parent_id, query, answer, answer_tokens,
  query_tokens_o200k, answer_tokens_o200k, query_tokens_cl100k, answer_tokens_cl100k, metadata, created_at`;

export const FILE_COLUMNS = `message_id, type, transfer_method, url, upload_file_id, belongs_to`;
