import * as api from "@/lib/api/contracts/project";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { listAudit } from "@/lib/auth/audit";
import { auditAnswer } from "@/lib/auth/project-answers";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listAuditEvents, async ({ access, query }) => ({
  data: (await listAudit((await getDb()).prisma, access.projectId, { limit: query.limit, before: query.before ? new Date(query.before) : undefined })).map(auditAnswer),
}));
