import { z } from "zod";
import { ZContextInput, ZContextResult } from "../../context/schemas";
import { ZModelPreset, ZModelPresetsInput } from "../../models/schemas";
import { ZWindowInput, ZWindowResult } from "../../strategies/schemas";
import type { Op } from "./op";

const tag = "context";

export const CONTEXT_OPS: Op[] = [
  { tag, method: "post", path: "/window", summary: "Preview a window strategy on an inline messages array", body: ZWindowInput, response: ZWindowResult, errors: [400, 413, 422, 502] },
  { tag, method: "post", path: "/context", summary: "Assemble system + long-term memories + history + query against the context window", body: ZContextInput, response: ZContextResult, errors: [400, 404, 413, 422, 502] },
  { tag, method: "get", path: "/offloaded/{ref}", summary: "Content that auto_context offloaded", response: z.object({ ref: z.string(), content: z.string(), tokens: z.number().int(), created_at: z.string() }), errors: [404] },
  { tag, method: "get", path: "/models", summary: "Model presets: encoding, context window, exact counting", response: z.object({ data: z.array(ZModelPreset.extend({ approximate: z.boolean(), source: z.enum(["builtin", "settings"]) })) }) },
  { tag, method: "get", path: "/settings/models", summary: "Model presets with their source", response: z.object({ data: z.array(ZModelPreset.extend({ source: z.string() })) }) },
  { tag, method: "put", path: "/settings/models", summary: "Save model presets (override built-ins)", body: ZModelPresetsInput, response: z.object({ data: z.array(ZModelPreset.extend({ source: z.string() })) }), errors: [400, 422] },
];
