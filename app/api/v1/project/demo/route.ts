import * as api from "@/lib/api/contracts/project";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { seedDemo } from "@/lib/demo/seed-if-empty";

export const dynamic = "force-dynamic";

export const POST = withApi(api.loadDemo, async ({ access }) => seedDemo(await getDb(), access.projectId, { ifEmpty: true }));
