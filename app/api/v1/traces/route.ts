import * as api from "@/lib/api/contracts/capture";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { exportAnswer } from "@/lib/capture/export-answer";
import { logEventsSeenLately } from "@/lib/capture/log-events-seen";
import { encodingOf, readOtlpBody } from "@/lib/capture/read-otlp-body";
import { StageTimes } from "@/lib/capture/stage-times";
import { ingestTraces, STATEMENT_SIZES, writtenTurnsOf } from "@/lib/capture/store-captures";
import { getDb } from "@/lib/db/get-db";
import { checkIncidentsSoon } from "@/lib/incidents/on-ingest";

export const dynamic = "force-dynamic";

/** OTLP/HTTP: exporters configured with OTEL_EXPORTER_OTLP_ENDPOINT=<memscope>/api post to <endpoint>/v1/traces. */
export const POST = withApi(api.exportTraces, async ({ req, access }) => {
  const encoding = encodingOf(req);
  const times = new StageTimes();
  const traces = await readOtlpBody(req, encoding, times);
  const sizes = STATEMENT_SIZES[(await getDb()).config.kind === "pglite" ? "embedded" : "server"];
  const sql = await dataSql(access);
  const result = await ingestTraces(sql, traces, new Date(), times, sizes);
  if (result.turns_created) checkIncidentsSoon(sql, { conversationIds: result.conversation_ids, captured: writtenTurnsOf(result) });
  return exportAnswer(result, encoding, times.header(), logEventsSeenLately(sql.projectId));
});
