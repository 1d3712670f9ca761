import * as api from "@/lib/api/contracts/capture";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { logsExportAnswer } from "@/lib/capture/export-answer";
import { noteLogEvents } from "@/lib/capture/log-events-seen";
import { LOGS } from "@/lib/capture/otlp-decoders";
import { encodingOf, readOtlpBody } from "@/lib/capture/read-otlp-body";
import { StageTimes } from "@/lib/capture/stage-times";
import { ingestLogs, STATEMENT_SIZES, writtenTurnsOf } from "@/lib/capture/store-captures";
import { getDb } from "@/lib/db/get-db";
import { checkIncidentsSoon } from "@/lib/incidents/on-ingest";

export const dynamic = "force-dynamic";

/** OTLP/HTTP: exporters configured with OTEL_EXPORTER_OTLP_ENDPOINT=<memscope>/api post log records to <endpoint>/v1/logs. */
export const POST = withApi(api.exportLogs, async ({ req, access }) => {
  const encoding = encodingOf(req);
  const times = new StageTimes();
  const logs = await readOtlpBody(req, encoding, times, LOGS);
  const sizes = STATEMENT_SIZES[(await getDb()).config.kind === "pglite" ? "embedded" : "server"];
  const sql = await dataSql(access);
  const result = await ingestLogs(sql, logs, new Date(), times, sizes);
  if (result.log_records > result.ignored + result.rejected.length) noteLogEvents(sql.projectId);
  if (result.turns_created) checkIncidentsSoon(sql, { conversationIds: result.conversation_ids, captured: writtenTurnsOf(result) });
  return logsExportAnswer(result, encoding, times.header());
});
