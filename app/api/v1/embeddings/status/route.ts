import * as api from "@/lib/api/contracts/context";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { embeddingStatus } from "@/lib/embeddings/embedding-status";

export const dynamic = "force-dynamic";

/** Active and configured embedding models, and the re-embedding job's progress. */
export const GET = withApi(api.embeddingStatus, async ({ access }) => embeddingStatus(await dataSql(access)));
