import { getDb } from "@/lib/db/get-db";
import { assembleContext } from "@/lib/context/assemble-context";
import { ZContextInput } from "@/lib/context/schemas";
import { parseBody, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";

export const POST = withApi(async ({ req }) => {
  const body = await parseBody(req, ZContextInput);
  return assembleContext((await getDb()).sql, body);
});
