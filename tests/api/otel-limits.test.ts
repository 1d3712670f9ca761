import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import type { Owner } from "../helpers/owner";
import { DATABASE_KINDS, itOnOneKind } from "../helpers/test-database";

// POST /api/v1/traces under hostile or oversized input (issue 37, OTLP; issue 35, item 4):
// each attack built here, sent as a write key would, and answered with a 4xx or a partial
// success naming the span and field; never a 5xx (exporters retry those forever), the good
// spans of the batch still stored, the server still answering.

type Msg = { role: string; parts: { type: string; content: string }[] };
const text = (role: string, content: string): Msg => ({ role, parts: [{ type: "text", content }] });
const TRACE = "5b8efff798038103d269b633813fc60c";
const PATH = (i: number) => `resourceSpans[0].scopeSpans[0].spans[${i}]`;
const spanId = (i: number) => (i + 1).toString(16).padStart(16, "0");
const kv = (key: string, v: string) => ({ key, value: { stringValue: v } });

/** A chat span in OTLP/JSON with the turn `n` of conversation `conv`; `extra` adds or replaces fields. */
function chat(i: number, conv: string, extra: Record<string, unknown> = {}, attrs: { key: string; value: unknown }[] = []) {
  return {
    traceId: TRACE,
    spanId: spanId(i),
    name: "chat",
    startTimeUnixNano: String(1_772_359_200_000_000_000n + BigInt(i) * 1_000_000_000n),
    endTimeUnixNano: String(1_772_359_200_500_000_000n + BigInt(i) * 1_000_000_000n),
    attributes: [
      kv("gen_ai.operation.name", "chat"),
      kv("gen_ai.conversation.id", conv),
      kv("gen_ai.input.messages", JSON.stringify([text("user", `question ${i}`)])),
      kv("gen_ai.output.messages", JSON.stringify([text("assistant", `answer ${i}`)])),
      ...attrs,
    ],
    ...extra,
  };
}
const request = (spans: unknown[], resource: { key: string; value: unknown }[] = []) =>
  JSON.stringify({ resourceSpans: [{ resource: { attributes: [kv("service.name", "limits-bot"), ...resource] }, scopeSpans: [{ scope: { name: "x" }, spans }] }] });

describe.each(DATABASE_KINDS)("OTLP limits on %s", (kind) => {
  // Refusals decided before any write run on one kind (the rule is in tests/helpers/test-database.ts);
  // the SDK's 10 MB batch, a bulk write, on both.
  const refusal = itOnOneKind(kind);
  let server: SharedProject;
  let owner: Owner;
  let n = 0;
  const project = async () => {
    const p = await owner.post("/projects", { name: `otel limits ${++n}` });
    const key = await owner.key(`k${n}`, ["read", "write", "admin"], p.id);
    const api = apiClient(server.url, { authorization: `Bearer ${key}` });
    const post = (body: BodyInit, headers: Record<string, string> = { "content-type": "application/json" }) =>
      fetch(`${server.url}/api/v1/traces`, { method: "POST", headers: { authorization: `Bearer ${key}`, ...headers }, body }).then(async (r) => ({
        status: r.status,
        body: r.headers.get("content-type")?.includes("json") ? await r.json() : null,
      }));
    /** The turns stored in the project, per conversation name. */
    const turns = async () => {
      const list = (await api.get("/conversations?limit=100")).body.data as { name: string; turn_count: number }[];
      return Object.fromEntries(list.map((c) => [c.name, c.turn_count]));
    };
    return { api, post, turns };
  };
  /** The server still answers after the attack (latency is bench material: loaded CI machines are slow). */
  const stillReady = async () => {
    const t0 = performance.now();
    const r = await fetch(`${server.url}/api/v1/ready`);
    expect(r.status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(5000);
  };

  beforeAll(async () => {
    server = await sharedProject(kind, "otel-limits");
    owner = server.owner;
  }, 240_000);
  afterAll(async () => server?.stop());

  refusal("messages nested 10 000 deep inside a string attribute: that span rejected, the batch stored", async () => {
    const { post, turns } = await project();
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const deepPart = `[{"role":"user","parts":[{"type":"tool_call_response","response":${deep}}]}]`;
    const r = await post(request([chat(0, "deep"), chat(1, "deep", {}, [kv("gen_ai.input.messages", deepPart)])]));
    expect(r.status).toBe(200);
    expect(r.body.partialSuccess.rejectedSpans).toBe("1");
    expect(r.body.memscope.rejected).toEqual([{ field: `${PATH(1)}.attributes[gen_ai.input.messages]`, message: "nested deeper than 64 levels" }]);
    expect(r.body.partialSuccess.errorMessage).toContain(`${PATH(1)}.attributes[gen_ai.input.messages]: nested deeper than 64 levels`);
    expect(await turns()).toEqual({ deep: 1 });
    await stillReady();
  });

  refusal("span times as the JSON numbers 1e300 and 1e21, and negative: those spans rejected naming the time, the others stored", async () => {
    const { post, turns } = await project();
    // JSON.stringify writes these numbers as 1e+300 and 1e+21: integers to JSON, far past fixed64.
    const body = request([chat(0, "times"), chat(1, "times", { startTimeUnixNano: 1e300 }), chat(2, "times", { endTimeUnixNano: 1e21 }), chat(3, "times", { startTimeUnixNano: -5 })]);
    expect(body).toContain("1e+300");
    const r = await post(body);
    expect(r.status).toBe(200);
    expect(r.body.partialSuccess.rejectedSpans).toBe("3");
    expect(r.body.memscope.rejected.map((x: { field: string }) => x.field)).toEqual([
      `${PATH(1)}.startTimeUnixNano`,
      `${PATH(2)}.endTimeUnixNano`,
      `${PATH(3)}.startTimeUnixNano`,
    ]);
    expect(r.body.memscope.rejected[0].message).toContain("within fixed64");
    expect(await turns()).toEqual({ times: 1 });
    await stillReady();
  });

  refusal("a span with more attributes or events than a span may carry is rejected alone; a resource with too many is a 400", async () => {
    const { post, turns } = await project();
    const many = Array.from({ length: 1_001 }, (_, i) => kv(`x.${i}`, "v"));
    const events = Array.from({ length: 1_001 }, () => ({ name: "e", timeUnixNano: "1" }));
    const r = await post(request([chat(0, "attrs"), chat(1, "attrs", {}, many), chat(2, "attrs", { events })]));
    expect(r.status).toBe(200);
    expect(r.body.memscope.rejected).toEqual([
      { field: `${PATH(1)}.attributes`, message: "1005 attributes, more than the 1000 a span may carry" },
      { field: `${PATH(2)}.events`, message: "1001 events, more than the 1000 a span may carry" },
    ]);
    expect(await turns()).toEqual({ attrs: 1 });
    const resource = await post(request([chat(3, "attrs")], many));
    expect(resource.status).toBe(400);
    expect(resource.body.error.details[0]).toMatchObject({ field: "resourceSpans[0].resource.attributes" });
    expect(await turns()).toEqual({ attrs: 1 });
    await stillReady();
  });

  refusal("user ids no route can address (.., ., /etc/x, empty after trim) reject their span; the batch is stored", async () => {
    const { post, turns, api } = await project();
    const r = await post(
      request([
        chat(0, "users", {}, [kv("user.id", "ana")]),
        chat(1, "users", {}, [kv("user.id", "..")]),
        chat(2, "users", {}, [kv("enduser.id", ".")]),
        chat(3, "users", {}, [kv("user.id", "/etc/x")]),
      ]),
    );
    expect(r.status).toBe(200);
    expect(r.body.memscope.rejected.map((x: { field: string }) => x.field)).toEqual([
      `${PATH(1)}.attributes[user.id]`,
      `${PATH(2)}.attributes[enduser.id]`,
      `${PATH(3)}.attributes[user.id]`,
    ]);
    expect(r.body.memscope.rejected[0].message).toContain('must not be ".."');
    expect(await turns()).toEqual({ users: 1 });
    const users = (await api.get("/conversations?limit=100")).body.data.map((c: { end_user_id: string }) => c.end_user_id);
    expect(users).toEqual(["ana"]);
    await stillReady();
  });

  refusal("a span storing more than 1 MiB of messages is rejected; a gzip body inflating more than 200 times past 4 MiB is a 413, nothing stored", async () => {
    const { post, turns } = await project();
    const history = Array.from({ length: 300 }, (_, i) => text(i % 2 ? "assistant" : "user", "x".repeat(4000)));
    history.push(text("user", "and now?"));
    const big = chat(1, "bytes", {}, [kv("gen_ai.input.messages", JSON.stringify(history))]);
    const r = await post(request([chat(0, "bytes"), big]));
    expect(r.status).toBe(200);
    expect(r.body.memscope.rejected).toEqual([{ field: `${PATH(1)}.attributes[gen_ai.input.messages]`, message: expect.stringContaining("more than the 1048576 a span may store") }]);
    expect(await turns()).toEqual({ bytes: 1 });

    // ~40 KB of gzip that would store ~20 MB: 20 spans each with ~1 MB of one repeated character.
    const repeated = Array.from({ length: 20 }, (_, i) =>
      chat(10 + i, "amplified", {}, [kv("gen_ai.input.messages", JSON.stringify([text("assistant", "y".repeat(1_000_000)), text("user", "q")]))]),
    );
    const gz = gzipSync(request(repeated), { level: 9 });
    expect(gz.length).toBeLessThan(60_000);
    const amplified = await post(gz, { "content-type": "application/json", "content-encoding": "gzip" });
    expect(amplified.status).toBe(413);
    expect(amplified.body.error.details[0].field).toBe("body (decompressed)");
    expect(await turns()).toEqual({ bytes: 1 });
    await stillReady();
  });

  it("the SDK's default batch: 512 realistic chat spans (16 KB system prompt, ~10 MB) are accepted, plain and gzip", async () => {
    const { post, turns } = await project();
    const words = "the of and to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part".split(" ");
    let seed = 7;
    const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const prose = (chars: number) => {
      let s = "";
      while (s.length < chars) s += `${words[Math.floor(rnd() * words.length)]} `;
      return s;
    };
    const system = JSON.stringify([{ type: "text", content: prose(16_000) }]);
    const batch = (conv: string, offset: number) =>
      Array.from({ length: 512 }, (_, i) =>
        chat(offset + i, `${conv}-${i % 32}`, {}, [
          kv("gen_ai.system_instructions", system),
          kv("gen_ai.input.messages", JSON.stringify([text("user", prose(2000)), text("assistant", prose(1500)), text("user", prose(500))])),
        ]),
      );
    const plain = request(batch("plain", 0));
    expect(plain.length).toBeGreaterThan(10 * 1024 * 1024);
    const a = await post(plain);
    expect(a.status).toBe(200);
    expect(a.body.memscope).toMatchObject({ spans: 512, turns_created: 512, rejected: [] });
    const b = await post(gzipSync(request(batch("gzip", 1000))), { "content-type": "application/json", "content-encoding": "gzip" });
    expect(b.status).toBe(200);
    expect(b.body.memscope).toMatchObject({ spans: 512, turns_created: 512, rejected: [] });
    const stored = await turns();
    expect(Object.values(stored).reduce((x, y) => x + y, 0)).toBe(1024);
    // Over the wire limit: 413, which OTLP exporters do not retry.
    const over = await post(new Uint8Array(33 * 1024 * 1024), { "content-type": "application/x-protobuf" });
    expect(over.status).toBe(413);
    await stillReady();
  }, 180_000);
});
