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
  const data = await insertTurns((await getDb()).sql, id, body.messages, {
    allowMissingParents: body.allow_missing_parents,
    fieldPrefix: "messages",
  });
  return json({ data, count: data.length }, 201);
});
