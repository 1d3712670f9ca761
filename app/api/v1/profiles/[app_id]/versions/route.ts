import * as api from "@/lib/api/contracts/profiles";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { createProfileVersion } from "@/lib/profiles/profile-versions";

export const dynamic = "force-dynamic";

export const POST = withApi(api.createProfileVersion, async ({ access, params, body }) => createProfileVersion(await dataSql(access), params.app_id, body));
