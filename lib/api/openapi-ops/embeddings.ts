import { ZEmbeddingStatus, ZReembedResult } from "../../embeddings/embedding-status";
import type { Op } from "./op";

const tag = "embeddings";

export const EMBEDDING_OPS: Op[] = [
  { tag, method: "get", path: "/embeddings/status", summary: "Active and configured embedding models, re-embedding progress", response: ZEmbeddingStatus },
  {
    tag,
    method: "post",
    path: "/embeddings/reembed",
    summary: "Start or resume re-embedding every memory with the configured model (202 while it runs)",
    response: ZReembedResult,
    status: 202,
    errors: [409],
  },
];
