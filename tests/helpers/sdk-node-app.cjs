// The README's recipe for @opentelemetry/instrumentation-openai, run as a user runs it
// (tests/api/otel-sdk-node.test.ts): NodeSDK configured only by the environment
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TIMEOUT,
// OTEL_SERVICE_NAME, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT; the model at
// OPENAI_BASE_URL with OPENAI_API_KEY, as the openai client reads them). Two calls of one
// conversation (the second resends the first's question and answer), then shutdown, which
// flushes traces, logs and metrics. Plain Node, CommonJS, no test framework: the require
// hook of the instrumentation patches `openai` as in an application.
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { OpenAIInstrumentation } = require("@opentelemetry/instrumentation-openai");
// NodeSDK's defaults export traces, logs and metrics over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT.
const sdk = new NodeSDK({ instrumentations: [new OpenAIInstrumentation()] });
sdk.start();
const OpenAI = require("openai"); // required after start(), so the instrumentation patches it
async function ask(messages) {
  return new OpenAI().chat.completions.create({ model: "gpt-4o-mini", messages });
}

(async () => {
  const messages = [
    { role: "system", content: "Be brief." },
    { role: "user", content: process.argv[2] },
  ];
  const first = await ask(messages);
  messages.push({ role: "assistant", content: first.choices[0].message.content }, { role: "user", content: process.argv[3] });
  await ask(messages);
  await sdk.shutdown();
  console.log("done");
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
