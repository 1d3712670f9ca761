import { z } from "zod";
import { ZContextInput, ZContextResult } from "../../context/schemas";
import { ZEmbeddingStatus, ZReembedResult } from "../../embeddings/embedding-status";
import { ZModelPreset, ZModelPresetsInput, ZModelRow } from "../../models/schemas";
import { ZWindowInput, ZWindowResult } from "../../strategies/schemas";
import { contract, pathId } from "../contract";

export const previewWindow = contract({
  tag: "context", method: "POST", path: "/window", scope: "context:read",
  summary: "Preview a window strategy on an inline messages array (nothing is stored but offloads)",
  description:
    "A read: the `read` grant may call it. It stores only the contents summary_buffer offloads (readable by their ref, GET /offloaded/{ref}), which change no other answer.",
  body: ZWindowInput, response: ZWindowResult, errors: [422, 502],
});

export const assembleContext = contract({
  tag: "context", method: "POST", path: "/context", scope: "context:read",
  summary: "Assemble system + long-term memories + history + query against the context window (the retrieval is logged)",
  description:
    "A read: the `read` grant may call it. The memory retrieval is logged; only a caller that also holds `write` marks the retrieved memories accessed (access_count, last_accessed_at, the recency term of later searches), and not with memory.dry_run: a read-only key or viewer changes no ranking (`memory_access_recorded`). Offloaded contents and auto_context's summary cache are stored; neither changes another answer.",
  body: ZContextInput, response: ZContextResult, errors: [404, 409, 422, 502],
});

export const readOffloaded = contract({
  tag: "context", method: "GET", path: "/offloaded/{ref}", scope: "context:read",
  summary: "Content that auto_context offloaded",
  params: z.object({ ref: pathId("Offloaded content") }),
  response: z.object({ ref: z.string(), content: z.string(), tokens: z.number().int(), created_at: z.string() }), errors: [404],
});

export const listModels = contract({
  tag: "settings", method: "GET", path: "/models", scope: "settings:read",
  summary: "Known models: encoding, context window, whether counting is exact",
  response: z.object({
    data: z.array(ZModelRow.loose()),
  }),
});

const ZPresetList = z.object({ data: z.array(ZModelPreset.extend({ source: z.string() })) });

export const getModelSettings = contract({
  tag: "settings", method: "GET", path: "/settings/models", scope: "settings:read",
  summary: "Model presets with their source",
  response: ZPresetList,
});

export const saveModelSettings = contract({
  tag: "settings", method: "PUT", path: "/settings/models", scope: "settings:write",
  summary: "Replace the saved model presets (they override built-ins of the same model name)",
  body: ZModelPresetsInput, bodyLimit: 256 * 1024, response: ZPresetList, errors: [422],
});

export const embeddingStatus = contract({
  tag: "embeddings", method: "GET", path: "/embeddings/status", scope: "embeddings:read",
  summary: "Active and configured embedding models, re-embedding progress",
  response: ZEmbeddingStatus,
});

export const startReembed = contract({
  tag: "embeddings", method: "POST", path: "/embeddings/reembed", scope: "embeddings:write",
  summary: "Start or resume re-embedding every memory with the configured model: 202 while a job runs, 200 when the configured model is already active",
  response: ZReembedResult, status: 202, alsoStatus: [200], errors: [409],
});

export const readiness = contract({
  tag: "system", method: "GET", path: "/ready", scope: "public",
  summary: "Readiness: 200 once the database is open and migrated (open to health checks)",
  response: z.object({ status: z.literal("ready"), database: z.enum(["pglite", "postgres"]) }), errors: [503],
});

export const CONTEXT_CONTRACTS = [previewWindow, assembleContext, readOffloaded];
export const SETTINGS_CONTRACTS = [listModels, getModelSettings, saveModelSettings, embeddingStatus, startReembed, readiness];
