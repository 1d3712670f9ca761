import * as api from "@/lib/api/contracts/memories";
import { reply, withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { listMemories } from "@/lib/memories/list-memories";
import { saveMemory } from "@/lib/memories/save-memory";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listMemories, async ({ access, params, query }) => listMemories(await dataSql(access), params.user_id, query));

/** 201 when a row was made; 200 when the save landed on an existing memory. */
export const POST = withApi(api.createMemory, async ({ access, params, body }) => {
  const r = await saveMemory(await dataSql(access), params.user_id, body);
  return reply({ ...r.memory, dedupe: r.dedupe }, r.created ? 201 : 200);
});
