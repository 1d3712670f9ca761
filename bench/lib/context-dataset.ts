import { randomUUID } from "node:crypto";
import { openDatabase } from "../../lib/db/open-database";
import { createConversation } from "../../lib/conversations/conversation-store";
import { ZConversationCreate } from "../../lib/conversations/schemas";
import { projectSql } from "../../lib/db/project-sql";
import { insertTurns } from "../../lib/messages/insert-turns";
import { ZTurnInput } from "../../lib/messages/schemas";
import { embedLexical, LEXICAL_DIMENSIONS, LEXICAL_MODEL } from "../../lib/embeddings/lexical-embedder";
import { toVectorLiteral } from "../../lib/embeddings/embedding-provider";
import { contentKey } from "../../lib/memories/normalize-content";
import { makeMemoryGenerator } from "./memory-text";
import { makeTurnGenerator } from "./text";

const INDEX = "memory_embeddings_hnsw_lexical_hash_v1";

/**
 * bench:context's data set in a PGlite folder: one conversation of `turns` turns and
 * `memories` lexical-embedded memories of `user`, loaded in bulk with the HNSW index
 * built after the load (much faster than inserting with it present).
 */
export async function loadContextDataset(dir: string, o: { turns: number; memories: number; user: string }): Promise<{ conversationId: string }> {
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  try {
    const conv = await createConversation(db.prisma, ZConversationCreate.parse({ app_id: "bench", end_user_id: o.user, name: "bench thread" }));
    const gen = makeTurnGenerator(500);
    await insertTurns(projectSql(db.sql, "default"), conv.id, Array.from({ length: o.turns }, () => ZTurnInput.parse(gen())));

    const mem = makeMemoryGenerator(4242);
    await db.sql.exec(`DROP INDEX IF EXISTS "${INDEX}"`);
    for (let start = 0; start < o.memories; start += 2000) {
      const batch = Array.from({ length: Math.min(2000, o.memories - start) }, () => ({ id: randomUUID(), ...mem() }));
      await db.sql.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO memories (id, user_id, memory_type, content, content_key, importance_score)
           SELECT u.id, $2, u.t::memory_type, u.c, u.k, u.i FROM unnest($1::uuid[], $3::text[], $4::text[], $5::text[], $6::float8[]) AS u(id, t, c, k, i)`,
          [batch.map((b) => b.id), o.user, batch.map((b) => b.memory_type), batch.map((b) => b.content), batch.map((b) => contentKey(b.content)), batch.map((b) => b.importance)],
        );
        await tx.query(
          `INSERT INTO memory_embeddings (memory_id, model, user_id, dimensions, embedding)
           SELECT u.id, $2, $3, $4, u.v::vector FROM unnest($1::uuid[], $5::text[]) AS u(id, v)`,
          [batch.map((b) => b.id), LEXICAL_MODEL, o.user, LEXICAL_DIMENSIONS, batch.map((b) => toVectorLiteral(embedLexical(b.content)))],
        );
      });
    }
    await db.sql.exec(`SET maintenance_work_mem = '256MB'`);
    await db.sql.exec(`CREATE INDEX "${INDEX}" ON memory_embeddings USING hnsw ((embedding::vector(${LEXICAL_DIMENSIONS})) vector_cosine_ops) WHERE model = '${LEXICAL_MODEL}'`);
    await db.sql.exec("ANALYZE");
    return { conversationId: conv.id };
  } finally {
    await db.close();
  }
}

/** The POST /context body both bench:context and its in-process profile send. */
export function contextRequest(user: string, conversationId: string, query: string, strategy: Record<string, unknown>) {
  return {
    user_id: user,
    conversation_id: conversationId,
    query,
    system_prompt: "You are a helpful assistant that remembers the user.",
    model: "gpt-4o",
    reserved_output_tokens: 1024,
    strategy,
    memory: { k: 10, dry_run: true },
  };
}
