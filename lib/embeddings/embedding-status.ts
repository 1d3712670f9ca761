import { z } from "zod";
import type { ProjectSql } from "../db/project-sql";
import { readActiveModel, type ActiveModel } from "./active-model";
import { configuredEmbeddingProvider } from "./embedding-provider";
import { latestJob } from "./reembed-job";

// What GET /api/v1/embeddings/status answers: the model retrieval reads, the model
// the environment configures, and the newest re-embedding job (progress for the UI).

const ZModel = z.object({ model: z.string(), dimensions: z.number().int(), kind: z.enum(["lexical", "openai-compatible"]) });

export const ZEmbeddingJob = z.object({
  id: z.string(),
  provider: z.string(),
  model: z.string(),
  dimensions: z.number().int(),
  status: z.enum(["pending", "running", "done", "failed", "cancelled"]),
  total: z.number().int(),
  done: z.number().int(),
  last_memory_id: z.string().nullable(),
  error: z.string().nullable(),
  started_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
  running_here: z.boolean().describe("This server process is working on the job now."),
});

export const ZEmbeddingStatus = z.object({
  active_model: ZModel.describe("The model whose vectors retrieval reads."),
  configured_model: ZModel.nullable().describe("The model the environment configures (MEMSCOPE_EMBEDDINGS_*); null if misconfigured."),
  configuration_error: z.string().nullable(),
  job: ZEmbeddingJob.nullable().describe("The newest re-embedding job, if any."),
});
export type EmbeddingStatus = z.infer<typeof ZEmbeddingStatus>;

export const ZReembedResult = ZEmbeddingStatus.extend({
  started: z.boolean().describe("A job was created or resumed (answered 202); false when the configured model is already active."),
});

export async function embeddingStatus(sql: ProjectSql): Promise<EmbeddingStatus> {
  let configured: ActiveModel | null = null;
  let configurationError: string | null = null;
  try {
    const p = configuredEmbeddingProvider();
    configured = { model: p.model, dimensions: p.dimensions, kind: p.kind };
  } catch (e) {
    configurationError = (e as Error).message;
  }
  // One snapshot for both reads: the job's "done" and the switch of the active model commit
  // together, and two separate reads could straddle that commit (a done job next to the old
  // model, seen under load in the two-instance test).
  const [recorded, job] = await sql.transaction(async (tx) => {
    await tx.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    return [await readActiveModel(tx), await latestJob(tx)] as const;
  });
  // Not recorded yet: the first write or search makes the configured model active.
  const active = recorded ?? configured;
  let jobAnswer: EmbeddingStatus["job"] = null;
  if (job) {
    const { runningHere, ...rest } = job;
    jobAnswer = { ...rest, running_here: runningHere };
  }
  return {
    active_model: active ?? { model: "unknown", dimensions: 0, kind: "lexical" },
    configured_model: configured,
    configuration_error: configurationError,
    job: jobAnswer,
  };
}
