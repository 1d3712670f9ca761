import * as api from "@/lib/api/contracts/profiles";
import { reply, withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { createProfileVersion } from "@/lib/profiles/profile-versions";

export const dynamic = "force-dynamic";

export const POST = withApi(api.createProfileVersion, async ({ access, params, body }) => {
  const r = await createProfileVersion(await dataSql(access), params.app_id, body);
  return reply(r.version, r.created ? 201 : 200);
});
