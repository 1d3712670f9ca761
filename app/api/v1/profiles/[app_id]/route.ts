import * as api from "@/lib/api/contracts/profiles";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { profileHistory } from "@/lib/profiles/profile-versions";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getProfile, async ({ access, params }) => profileHistory(await dataSql(access), params.app_id));
