import { getDb } from "@/lib/db/get-db";
import { insertTurns } from "@/lib/messages/insert-turns";
import { ZBatchInput } from "@/lib/messages/schemas";
import { json, parseBody, parseId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

/** Up to 10 000 turns, oldest first, in one transaction. */
export const POST = withApi<P>(async ({ req, params }) => {
  const id = parseId(params.id);
  const body = await parseBody(req, ZBatchInput);
  const opts = { allowMissingParents: body.allow_missing_parents, fieldPrefix: "messages" };
  const { sql } = await getDb();
  const data =
    body.return === "minimal"
      ? await insertTurns(sql, id, body.messages, { ...opts, minimal: true })
      : await insertTurns(sql, id, body.messages, opts);
  return json({ data, count: data.length }, 201);
});
