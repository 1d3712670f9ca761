import { getDb } from "@/lib/db/get-db";
import { readOffload } from "@/lib/strategies/offloaded-contents";
import { parseId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { ref: string };

/** The full content that auto_context replaced by a reference. */
export const GET = withApi<P>(async ({ params }) => readOffload((await getDb()).sql, parseId(params.ref, "ref")));
