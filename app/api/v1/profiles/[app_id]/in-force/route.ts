import * as api from "@/lib/api/contracts/profiles";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { NotFoundError } from "@/lib/errors/domain-errors";
import { profileInForce } from "@/lib/profiles/profile-versions";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getProfileInForce, async ({ access, params, query }) => {
  const at = query.at ? new Date(query.at) : new Date();
  const found = await profileInForce(await dataSql(access), params.app_id, at);
  // No profile, and a profile whose first version came later, answer alike: nothing was in force.
  if (!found) throw new NotFoundError("Profile in force", `${params.app_id} at ${at.toISOString()}`, "at");
  return found;
});
