// npx tsx bench/otel-gzip-ratio.ts — issue 37 / issue 35 item 4: how many times an OTLP/JSON
// body inflates, for the SDK's default batch of realistic chat spans and for the attack that
// stored ~20 MB from ~40 KB. MAX_GZIP_RATIO (lib/capture/read-otlp-body.ts) sits between them.
// In process, no server: the bodies are built the way the tests build them, and gzipped at
// zlib's default level (what the SDKs send) and at level 9.

import { gzipSync } from "node:zlib";
import { GZIP_RATIO_FREE_BYTES, MAX_GZIP_RATIO } from "../lib/capture/read-otlp-body";

const WORDS =
  "the of and to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part account travel booking refund policy customer order shipping delivery address payment invoice".split(
    " ",
  );
let seed = 11;
const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const prose = (chars: number) => {
  let s = "";
  while (s.length < chars) s += `${WORDS[Math.floor(rnd() * WORDS.length)]} `;
  return s;
};
const text = (role: string, content: string) => ({ role, parts: [{ type: "text", content }] });
const kv = (key: string, v: string) => ({ key, value: { stringValue: v } });
const span = (i: number, attrs: { key: string; value: unknown }[]) => ({
  traceId: "5b8efff798038103d269b633813fc60c",
  spanId: (i + 1).toString(16).padStart(16, "0"),
  name: "chat",
  startTimeUnixNano: String(1_772_359_200_000_000_000n + BigInt(i)),
  attributes: [kv("gen_ai.operation.name", "chat"), ...attrs],
});
const body = (spans: unknown[]) => Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }));

function measure(label: string, raw: Buffer) {
  for (const level of [6, 9]) {
    const gz = gzipSync(raw, { level });
    const ratio = raw.length / gz.length;
    const refused = raw.length > GZIP_RATIO_FREE_BYTES && ratio > MAX_GZIP_RATIO;
    console.log(`${label.padEnd(58)} level ${level}: ${(raw.length / 1e6).toFixed(1)} MB -> ${(gz.length / 1e3).toFixed(0)} KB, x${ratio.toFixed(0)}${refused ? "  (413)" : ""}`);
  }
}

const system = JSON.stringify([{ type: "text", content: prose(16_000) }]);
for (const turns of [1, 10, 20]) {
  const spans: unknown[] = [];
  for (let c = 0; spans.length < 512; c++) {
    const history: unknown[] = [];
    for (let t = 0; t < turns && spans.length < 512; t++) {
      history.push(text("user", prose(200)));
      const out = [text("assistant", prose(400))];
      spans.push(span(spans.length, [kv("gen_ai.system_instructions", system), kv("gen_ai.input.messages", JSON.stringify(history)), kv("gen_ai.output.messages", JSON.stringify(out))]));
      history.push(...out);
    }
  }
  measure(`512 chat spans, 16 KB system prompt, ${turns} turn(s) a conversation`, body(spans));
}
const attack = Array.from({ length: 20 }, (_, i) => span(i, [kv("gen_ai.input.messages", JSON.stringify([text("assistant", "y".repeat(1_000_000)), text("user", "q")]))]));
measure("attack: 20 spans of 1 MB of one repeated letter", body(attack));
