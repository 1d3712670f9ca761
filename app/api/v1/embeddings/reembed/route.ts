import * as api from "@/lib/api/contracts/context";
import { reply, withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { embeddingStatus } from "@/lib/embeddings/embedding-status";
import { ensureReembedJob } from "@/lib/embeddings/reembed-job";

export const dynamic = "force-dynamic";

/**
 * Starts (or resumes / retries) re-embedding every memory with the configured model.
 * 202 while a job runs in the background; 200 when the configured model is already
 * active (or the store was empty and it switched at once). A misconfigured model is a
 * ConfigurationError: 409 embeddings_misconfigured.
 */
export const POST = withApi(api.startReembed, async ({ access }) => {
  const sql = await dataSql(access);
  const started = (await ensureReembedJob(sql)).state === "started";
  return reply({ ...(await embeddingStatus(sql)), started }, started ? 202 : 200);
});
