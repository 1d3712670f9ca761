import * as api from "@/lib/api/contracts/project";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { memberAnswer } from "@/lib/auth/project-answers";
import { listMembers } from "@/lib/auth/project-members";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listMembers, async ({ access }) => ({ data: (await listMembers((await getDb()).prisma, access.projectId)).map(memberAnswer) }));
