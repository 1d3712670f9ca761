import * as api from "@/lib/api/contracts/capture";
import { withApi } from "@/lib/api/with-api";
import { metricsExportAnswer } from "@/lib/capture/export-answer";
import { METRICS } from "@/lib/capture/otlp-decoders";
import { encodingOf, readOtlpBody } from "@/lib/capture/read-otlp-body";

export const dynamic = "force-dynamic";

/** OTLP/HTTP metrics (<endpoint>/v1/metrics): read and counted, so the SDK's export succeeds, then dropped. */
export const POST = withApi(api.exportMetrics, async ({ req }) => {
  const encoding = encodingOf(req);
  const { dataPoints } = await readOtlpBody(req, encoding, undefined, METRICS);
  return metricsExportAnswer(dataPoints, encoding);
});
