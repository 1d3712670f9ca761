import { z } from "zod";

export const ZModelPreset = z
  .object({
    model: z.string().trim().min(1).max(100),
    context_window: z.number().int().min(256).max(100_000_000),
    encoding: z.enum(["o200k_base", "cl100k_base"]),
    exact: z.boolean().default(false),
  })
  .strict();
export const ZModelPresetsInput = z.object({ presets: z.array(ZModelPreset).max(200) }).strict();
