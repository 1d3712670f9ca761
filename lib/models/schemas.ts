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

/** A row of GET /models: a preset with whether its counting is approximate and where it comes from. */
export const ZModelRow = ZModelPreset.extend({ approximate: z.boolean(), source: z.enum(["builtin", "settings"]) });
export type ModelRow = z.infer<typeof ZModelRow>;
export type ModelPreset = z.infer<typeof ZModelPreset>;
