import { getDb } from "@/lib/db/get-db";
import { listMemories } from "@/lib/memories/list-memories";
import { saveMemory } from "@/lib/memories/save-memory";
import { ZMemoryCreate, ZMemoryListQuery } from "@/lib/memories/schemas";
import { json, parseBody, parseQuery, parseUserId, withApi } from "@/lib/api/with-api";
import { z } from "zod";

export const dynamic = "force-dynamic";
type P = { user_id: string };

const ZCreateBody = ZMemoryCreate.extend({ dedupe_threshold: z.number().min(0).max(1).optional() });

export const GET = withApi<P>(async ({ params, url }) => {
  const q = parseQuery(url, ZMemoryListQuery);
  return listMemories((await getDb()).sql, parseUserId(params.user_id), q);
});

/** 201 when a row was made; 200 when the save landed on an existing memory. */
export const POST = withApi<P>(async ({ req, params }) => {
  const body = await parseBody(req, ZCreateBody, 256 * 1024);
  const r = await saveMemory((await getDb()).sql, parseUserId(params.user_id), body);
  return json({ ...r.memory, dedupe: r.dedupe }, r.created ? 201 : 200);
});
