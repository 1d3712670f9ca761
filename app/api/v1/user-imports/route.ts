import * as api from "@/lib/api/contracts/privacy";
import { reply, withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { importUser } from "@/lib/privacy/import-user";

export const dynamic = "force-dynamic";

export const POST = withApi(api.importUser, async ({ access, body }) => {
  const counts = await importUser(await dataSql(access), body);
  return reply({ user_id: body.user_id, counts }, 201);
});
