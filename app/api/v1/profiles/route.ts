import * as api from "@/lib/api/contracts/profiles";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { listProfiles } from "@/lib/profiles/profile-versions";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listProfiles, async ({ access }) => listProfiles(await dataSql(access)));
