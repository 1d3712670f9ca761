import * as api from "@/lib/api/contracts/memories";
import { reply, withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { listMemories } from "@/lib/memories/list-memories";
import { listMemoriesAsOf } from "@/lib/memories/as-of";
import { parseAsOf } from "@/lib/memories/as-of/parse-as-of";
import { saveMemory } from "@/lib/memories/save-memory";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listMemories, async ({ access, params, query }) => {
  const { as_of, ...q } = query;
  const asOf = parseAsOf(as_of);
  if (asOf === undefined) return listMemories(await dataSql(access), params.user_id, q);
  const { cursor, limit, sort, order, ...filters } = q;
  const page = await listMemoriesAsOf(await dataSql(access), { userId: params.user_id, asOf, filters, cursor, limit, sort, order });
  return { data: page.data, next_cursor: page.next_cursor };
});

/** 201 when a row was made; 200 when the save landed on an existing memory. */
export const POST = withApi(api.createMemory, async ({ access, params, body }) => {
  const r = await saveMemory(await dataSql(access), params.user_id, body);
  return reply({ ...r.memory, dedupe: r.dedupe }, r.created ? 201 : 200);
});
