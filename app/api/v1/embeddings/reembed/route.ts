import { getDb } from "@/lib/db/get-db";
import { ApiError } from "@/lib/api/api-error";
import { embeddingStatus } from "@/lib/embeddings/embedding-status";
import { ensureReembedJob } from "@/lib/embeddings/reembed-job";
import { json, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";

/**
 * Starts (or resumes / retries) re-embedding every memory with the configured model.
 * 202 while a job runs in the background; 200 when the configured model is already
 * active (or the store was empty and it switched at once).
 */
export const POST = withApi(async () => {
  const { sql } = await getDb();
  let started: boolean;
  try {
    started = (await ensureReembedJob({ sql })).state === "started";
  } catch (e) {
    if (e instanceof Error && /MEMSCOPE_EMBEDDINGS_/.test(e.message)) throw new ApiError(409, "embeddings_misconfigured", e.message);
    throw e;
  }
  return json({ ...(await embeddingStatus(sql)), started }, started ? 202 : 200);
});
