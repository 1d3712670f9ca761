import * as api from "@/lib/api/contracts/profiles";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { NotFoundError } from "@/lib/errors/domain-errors";
import { profileVersion } from "@/lib/profiles/profile-versions";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getProfileVersion, async ({ access, params }) => {
  if (!/^[1-9]\d{0,8}$/.test(params.version)) throw new NotFoundError("Profile version", `${params.app_id} v${params.version}`, "version");
  return profileVersion(await dataSql(access), params.app_id, Number(params.version));
});
