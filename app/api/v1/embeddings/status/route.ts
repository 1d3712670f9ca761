import { getDb } from "@/lib/db/get-db";
import { embeddingStatus } from "@/lib/embeddings/embedding-status";
import { withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";

/** Active and configured embedding models, and the re-embedding job's progress. */
export const GET = withApi(async () => embeddingStatus((await getDb()).sql));
