import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { checkIncidentsSoon } from "@/lib/incidents/on-ingest";
import { insertTurns } from "@/lib/messages/insert-turns";

export const dynamic = "force-dynamic";

/** Up to 10 000 turns, oldest first, in one transaction. */
export const POST = withApi(api.appendMessageBatch, async ({ access, params, body }) => {
  const opts = { allowMissingParents: body.allow_missing_parents, fieldPrefix: "messages" };
  const sql = await dataSql(access);
  const data =
    body.return === "minimal"
      ? await insertTurns(sql, params.id, body.messages, { ...opts, minimal: true })
      : await insertTurns(sql, params.id, body.messages, opts);
  // The questions as written: detection reads only the turns that can fire (lib/incidents/ingest-filter.ts).
  checkIncidentsSoon(sql, { conversationIds: [params.id], turns: data.map((t, i) => ({ id: t.id, query: body.messages[i].query })) });
  return { data, count: data.length };
});
