import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { OWNER_ENV, signInOwner, type Owner } from "../helpers/owner";
import { DATABASE_KINDS, startAppOn } from "../helpers/test-database";

// Memory evals (issue 23) through the real server: sets, cases, runs, drill-downs and
// comparisons; imports of case files and of the LongMemEval / LoCoMo formats; project
// isolation; and Memscope's own CI eval: the CLI against the demo data, passing today and
// failing (exit 1, the broken cases named) under a worse configuration.

const ROOT = path.resolve(__dirname, "../..");
const FIX = path.join(ROOT, "tests/fixtures/evals");
// What recall@3 of evals/demo.jsonl measures on the demo seed today (lexical embedder):
// 12 of 17 cases (0.706; the five misses are real: "Which seat do I prefer on flights?"
// shares too few words with "Prefers a window seat on flights" for a bag-of-words
// embedder, and recency and importance outrank it). CI fails when it drops below.
const DEMO_RECALL_AT_3 = 0.7;

describe.each(DATABASE_KINDS)("evals on %s", (kind) => {
  let server: AppServer;
  let owner: Owner;
  let n = 0;
  const project = async () => {
    const p = await owner.post("/projects", { name: `evals ${++n}` });
    return apiClient(server.url, { authorization: `Bearer ${await owner.key(`k${n}`, ["read", "write"], p.id)}` });
  };

  beforeAll(async () => {
    server = await startAppOn(kind, { seed: true, env: OWNER_ENV });
    owner = await signInOwner(server.url);
  }, 240_000);
  afterAll(async () => server?.stop());

  it("a set, its cases and a run: metrics, ranks, the retrieval's score parts; nothing logged or marked accessed; another project sees nothing", async () => {
    const api = await project();
    const user = `u-${randomUUID().slice(0, 8)}`;
    const ids: string[] = [];
    for (const content of ["Allergic to peanuts", "Lives in Lisbon near the river", "Works as a night nurse", "Drinks oat milk coffee"]) {
      const r = await api.post(`/users/${user}/memories`, { memory_type: "fact", content });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    const set = await api.post("/evals/sets", { name: "basics", description: "hand-made" });
    expect(set.status).toBe(201);
    const taken = await api.post("/evals/sets", { name: "basics" });
    expect([taken.status, taken.body.error.code]).toEqual([409, "eval_set_name_taken"]);
    expect((await api.post("/evals/sets", { name: "" })).status).toBe(422);
    expect((await api.get("/evals/sets?name=")).status).toBe(422);
    expect((await api.post(`/evals/sets/${randomUUID()}/cases`, { cases: [{ user_id: user, question: "q" }] })).status).toBe(404);
    const bad = await api.post(`/evals/sets/${set.body.id}/cases`, { cases: [{ user_id: user, question: "x", expected: { memory_ids: ["nope"] } }] });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].field).toBe("cases[0].expected.memory_ids[0]");
    const added = await api.post(`/evals/sets/${set.body.id}/cases`, {
      cases: [
        { user_id: user, question: "Where does the user live?", expected: { memory_ids: [ids[1]] }, category: "home" },
        { user_id: user, question: "What is the user allergic to?", expected: { texts: ["peanuts"] }, category: "health" },
        { user_id: user, question: "Which car does the user drive?", expected: { texts: ["Tesla"] }, category: "health" },
        { user_id: user, question: "Say hello" },
      ],
    });
    expect(added.status).toBe(201);
    expect(added.body.data).toHaveLength(4);

    const run = await api.post(`/evals/sets/${set.body.id}/runs`, { config: { k: 2 }, label: "first" });
    expect(run.status).toBe(201);
    const m = run.body.metrics.overall;
    expect([m.cases, m.scored_cases, run.body.failed_cases]).toEqual([4, 3, 1]);
    expect(m.recall.value).toBeCloseTo(2 / 3, 9);
    expect(m.hit_rate.low).toBeLessThanOrEqual(m.hit_rate.value);
    expect(Object.keys(run.body.metrics.by_category).sort()).toEqual(["health", "home"]);

    const cases = await api.get(`/evals/runs/${run.body.id}/cases`);
    expect(cases.status).toBe(200);
    expect(cases.body.data[0].hit).toBe(false); // failed first
    const live = cases.body.data.find((c: { question: string }) => c.question === "Where does the user live?");
    expect(live.expected_ranks).toMatchObject([{ kind: "memory", target: ids[1] }]);
    const rank = live.expected_ranks[0].rank;
    expect(rank).toBeGreaterThanOrEqual(1);
    const detail = await api.get(`/evals/runs/${run.body.id}/cases/${live.case_id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.retrieved[rank - 1]).toMatchObject({ rank, memory_id: ids[1], relevant: true });
    expect(detail.body.retrieved.filter((r: { relevant: boolean }) => r.relevant)).toHaveLength(1);
    // The expected memory comes with its text: a reader sees what was expected, not an id.
    expect(detail.body.expected_memories).toEqual([{ id: ids[1], content: "Lives in Lisbon near the river", status: "active" }]);
    // Latency percentiles of 4 cases: too few for any interval, so none is claimed.
    expect(m.latency_p95).toMatchObject({ low: null, high: null });
    expect(m.latency_p50).toMatchObject({ low: null, high: null });
    expect(detail.body.retrieved[rank - 1].breakdown.similarity_term).toBeGreaterThan(0);
    expect((await api.get(`/evals/runs/${run.body.id}/cases?only=failed`)).body.data).toHaveLength(1);
    expect((await api.get(`/evals/runs/${run.body.id}/cases?only=bogus`)).status).toBe(422);

    // A run is a read: no retrieval logged, nothing marked accessed.
    const accesses = await api.get(`/memories/${ids[1]}/accesses`);
    expect(accesses.body.data).toEqual([]);
    expect((await api.get(`/memories/${ids[1]}`)).body.access_count).toBe(0);

    // as_of before any memory existed: nothing to find.
    const past = await api.post(`/evals/sets/${set.body.id}/runs`, { config: { k: 2, as_of: "2020-01-01T00:00:00Z" } });
    expect(past.status).toBe(201);
    expect(past.body.metrics.overall.recall.value).toBe(0);
    expect((await api.post(`/evals/sets/${set.body.id}/runs`, { config: { embedding_model: "text-embedding-3-small" } })).status).toBe(422);
    const cmp = await api.get(`/evals/runs/${past.body.id}/compare?base=${run.body.id}`);
    expect(cmp.status).toBe(200);
    expect(cmp.body.newly_failed.map((c: { question: string }) => c.question).sort()).toEqual(["What is the user allergic to?", "Where does the user live?"]);
    // The two runs read the memory at different instants: said, not compared silently.
    expect(cmp.body.config_changes).toEqual([{ field: "as_of", base: null, head: "2020-01-01T00:00:00.000Z" }]);
    expect((await api.get(`/evals/runs/${run.body.id}/compare?base=${run.body.id}`)).body.config_changes).toEqual([]);
    expect((await api.get(`/evals/runs/${past.body.id}/compare?base=nope`)).status).toBe(422);
    // Without base: against the run of the same set made just before; the first run has none.
    const previous = await api.get(`/evals/runs/${past.body.id}/compare`);
    expect(previous.status).toBe(200);
    expect(previous.body).toMatchObject({ base_run_id: run.body.id, head_run_id: past.body.id });
    const first = await api.get(`/evals/runs/${run.body.id}/compare`);
    expect(first.status).toBe(422);
    expect(first.body.error.details[0].field).toBe("base");
    const one = await api.get(`/evals/runs/${past.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: past.body.id, set_id: set.body.id });
    expect((await api.get(`/evals/sets/${set.body.id}/runs`)).body.data.map((r: { id: string }) => r.id)).toEqual([run.body.id, past.body.id]);
    expect((await api.get(`/evals/sets?name=basics`)).body.data[0]).toMatchObject({ case_count: 4, run_count: 2 });

    // Another project: the same answer as for ids that never existed.
    const other = await project();
    const fresh = randomUUID();
    for (const p of [`/evals/sets/${set.body.id}`, `/evals/sets/${set.body.id}/cases`, `/evals/sets/${set.body.id}/runs`, `/evals/runs/${run.body.id}`, `/evals/runs/${run.body.id}/cases`, `/evals/runs/${run.body.id}/cases/${live.case_id}`]) {
      const theirs = await other.get(p);
      const none = await other.get(p.replace(set.body.id, fresh).replace(run.body.id, fresh));
      expect(theirs.status).toBe(404);
      expect({ ...theirs.body.error, message: "", details: [] }).toEqual({ ...none.body.error, message: "", details: [] });
    }
    expect((await other.get("/evals/sets")).body.data).toEqual([]);
    expect((await other.post(`/evals/sets/${set.body.id}/runs`, {})).status).toBe(404);
    expect((await api.get(`/evals/runs/${run.body.id}/compare?base=${fresh}`)).status).toBe(404);
    expect((await other.del(`/evals/sets/${set.body.id}/cases/${live.case_id}`)).status).toBe(404);

    expect((await api.del(`/evals/sets/${set.body.id}/cases/${live.case_id}`)).status).toBe(204);
    expect((await api.del(`/evals/sets/${set.body.id}/cases/${live.case_id}`)).status).toBe(404);
    expect((await api.get(`/evals/sets/${set.body.id}`)).body.case_count).toBe(3);
    expect((await api.del(`/evals/sets/${set.body.id}`)).status).toBe(204);
    expect((await api.get(`/evals/sets/${set.body.id}`)).status).toBe(404);
    expect((await api.del(`/evals/sets/${set.body.id}`)).status).toBe(404);
    expect((await api.get(`/evals/runs/${run.body.id}`)).status).toBe(404);
  });

  it("imports: JSONL and CSV cases; LongMemEval and LoCoMo files with their sessions, turns, memories and evidence; malformed records named", async () => {
    const api = await project();
    const set = (await api.post("/evals/sets", { name: "bench" })).body;
    const lme = await api.post(`/evals/sets/${set.id}/import`, { format: "longmemeval", content: fs.readFileSync(path.join(FIX, "longmemeval-sample.json"), "utf8") });
    expect(lme.status).toBe(201);
    expect(lme.body).toEqual({ cases: 2, skipped: 0, conversations: 3, turns: 4, memories: 8, dry_run: false, defects: [], defect_count: 0 });
    const again = await api.post(`/evals/sets/${set.id}/import`, { format: "longmemeval", content: fs.readFileSync(path.join(FIX, "longmemeval-sample.json"), "utf8") });
    expect(again.body).toEqual({ cases: 0, skipped: 2, conversations: 0, turns: 0, memories: 0, dry_run: false, defects: [], defect_count: 0 });
    const loc = await api.post(`/evals/sets/${set.id}/import`, { format: "locomo", content: fs.readFileSync(path.join(FIX, "locomo-sample.json"), "utf8") });
    // Its adversarial question has no evidence: imported, flagged, and said so.
    expect(loc.body).toEqual({ cases: 3, skipped: 0, conversations: 2, turns: 5, memories: 5, dry_run: false, defects: [{ record: "record 0 (sample_id conv-26)", external_id: "locomo:conv-26:2", field: "qa[2].evidence", message: "no evidence ids: nothing to score", unscorable: true }], defect_count: 1 });

    // Sessions are conversations with their dates; the evidence is the marked turn.
    const convs = await api.get(`/conversations?user_id=${encodeURIComponent("locomo:conv-26")}`);
    expect(convs.body.data.map((c: { created_at: string }) => c.created_at).sort()).toEqual(["2023-05-08T13:56:00.000Z", "2023-05-25T19:55:00.000Z"]);
    const cases = (await api.get(`/evals/sets/${set.id}/cases`)).body.data;
    const degree = cases.find((c: { question: string }) => c.question === "What degree did I graduate with?");
    const [turn] = degree.expected.turns;
    const msgs = await api.get(`/conversations/${turn.conversation_id}/messages`);
    expect(msgs.body.data.find((x: { id: string }) => x.id === turn.message_id).query).toMatch(/^I graduated with a degree in Business Administration/);

    const run = await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 3 } });
    const rc = (await api.get(`/evals/runs/${run.body.id}/cases`)).body.data;
    expect(rc.find((c: { question: string }) => c.question === "What degree did I graduate with?").hit).toBe(true);
    expect(run.body.metrics.by_category["single-session-user"].recall.value).toBe(1);

    const csv = await api.post(`/evals/sets/${set.id}/import`, { format: "csv", content: `user_id,question,expected_texts,category\nlocomo:conv-26,Who paints?,sunrise,art\n` });
    expect(csv.body.cases).toBe(1);
    const jsonl = await api.post(`/evals/sets/${set.id}/import`, { format: "jsonl", content: `{"user_id":"u","question":"ok"}\n{"user_id":"u","question":""}\n` });
    expect(jsonl.status).toBe(422);
    expect(jsonl.body.error.code).toBe("invalid_eval_file");
    expect(jsonl.body.error.details[0].field).toBe("line 2: question");
    const broken = JSON.parse(fs.readFileSync(path.join(FIX, "locomo-sample.json"), "utf8"));
    broken[0].conversation.session_2[1].dia_id = 7;
    broken[0].conversation.session_2[0].text = null;
    const bad = await api.post(`/evals/sets/${set.id}/import`, { format: "locomo", content: JSON.stringify(broken) });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].field).toBe("record 0 (sample_id conv-26): conversation.session_2[0].text");

    // References that name nothing (issue 40, item 7): reported per question, the rest imported.
    const lmeFile = JSON.parse(fs.readFileSync(path.join(FIX, "longmemeval-sample.json"), "utf8"));
    const refs = lmeFile.map((r: Record<string, unknown>, i: number) => ({ ...r, question_id: `refs${i}_${r.question_id}` }));
    refs[0].answer_session_ids = [...(refs[0].answer_session_ids ?? []), "nowhere_1"];
    const nowhere = await api.post(`/evals/sets/${set.id}/import`, { format: "longmemeval", content: JSON.stringify(refs), user_prefix: "refs" });
    expect(nowhere.status).toBe(201);
    expect(nowhere.body.cases).toBe(2);
    expect(nowhere.body.defects).toEqual([
      { record: `record 0 (question_id ${refs[0].question_id})`, external_id: `longmemeval:${refs[0].question_id}`, field: "answer_session_ids", message: 'session "nowhere_1" is not in haystack_session_ids', unscorable: false },
    ]);
    const locRefs = JSON.parse(fs.readFileSync(path.join(FIX, "locomo-sample.json"), "utf8")).map((r: Record<string, unknown>) => ({ ...r, sample_id: `${r.sample_id}-refs` }));
    locRefs[0].qa[0].evidence = ["D9:99"];
    const noTurn = await api.post(`/evals/sets/${set.id}/import`, { format: "locomo", content: JSON.stringify(locRefs) });
    expect(noTurn.status).toBe(201);
    expect(noTurn.body.cases).toBe(3);
    expect(noTurn.body.defects.map((d: { field: string; message: string; unscorable: boolean }) => [d.field, d.message, d.unscorable])).toEqual([
      ["qa[0].evidence", '"D9:99" names no turn of this conversation', true],
      ["qa[2].evidence", "no evidence ids: nothing to score", true],
    ]);
    const flagged = (await api.get(`/evals/sets/${set.id}/cases`)).body.data.find((c: { external_id: string }) => c.external_id === "locomo:conv-26-refs:0");
    expect(flagged.tags).toContain("unscorable");
    // A dry run lists every defect of a file, bad records included, and writes nothing.
    const both = JSON.parse(JSON.stringify(locRefs)).map((r: Record<string, unknown>) => ({ ...r, sample_id: `${r.sample_id}-dry` }));
    both.push({ ...both[0], sample_id: "broken-dry", conversation: { ...both[0].conversation, session_1_date_time: "someday" } });
    const casesBefore = (await api.get(`/evals/sets/${set.id}`)).body.case_count;
    expect(casesBefore).toBeGreaterThan(0);
    const dry = await api.post(`/evals/sets/${set.id}/import`, { format: "locomo", content: JSON.stringify(both), dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body.dry_run).toBe(true);
    expect(dry.body.defects.map((d: { record: string; field: string }) => `${d.record}: ${d.field}`)).toEqual([
      "record 0 (sample_id conv-26-refs-dry): qa[0].evidence",
      "record 0 (sample_id conv-26-refs-dry): qa[2].evidence",
      `record ${both.length - 1} (sample_id broken-dry): conversation.session_1_date_time`,
    ]);
    expect(dry.body.defect_count).toBe(3);
    expect((await api.get(`/evals/sets/${set.id}`)).body.case_count).toBe(casesBefore);
    expect((await api.post(`/evals/sets/${randomUUID()}/import`, { format: "jsonl", content: "{}" })).status).toBe(404);
  });

  it("a run scored as LongMemEval or LoCoMo scores: user turns only, abstention and assistant-labelled questions left out; LoCoMo's evidence share, a question without evidence counted as 1", async () => {
    const api = await project();
    const set = (await api.post("/evals/sets", { name: "protocols" })).body;
    const session = (label: "user" | "assistant") => [
      { role: "user", content: label === "user" ? "I adopted a greyhound named Biscuit last spring." : "Which dog breeds are calm indoors?", ...(label === "user" ? { has_answer: true } : {}) },
      { role: "assistant", content: label === "assistant" ? "Greyhounds such as Biscuit are famously calm indoors." : "Congratulations on Biscuit!", ...(label === "assistant" ? { has_answer: true } : {}) },
    ];
    const rec = (id: string, question: string, label: "user" | "assistant") => ({
      question_id: id,
      question_type: "single-session-user",
      question,
      answer: "Biscuit",
      question_date: "2023/05/30 (Tue) 23:40",
      haystack_session_ids: [`answer_${id}`],
      haystack_dates: ["2023/05/22 (Mon) 18:05"],
      haystack_sessions: [session(label)],
      answer_session_ids: [`answer_${id}`],
    });
    // Labelled on the user's side; labelled on the assistant's only; an abstention question with a label.
    const file = [rec("p_user", "What is my greyhound called?", "user"), rec("p_asst", "Which calm breed did you mention?", "assistant"), rec("p_user_abs", "What is my greyhound called?", "user")];
    const imp = await api.post(`/evals/sets/${set.id}/import`, { format: "longmemeval", content: JSON.stringify(file) });
    expect(imp.status, JSON.stringify(imp.body)).toBe(201);
    const ours = await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 3 } });
    expect(ours.status, JSON.stringify(ours.body)).toBe(201);
    expect(ours.body.config.protocol).toBe("memscope");
    expect(ours.body.metrics.overall.scored_cases).toBe(3);
    const lme = await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 3, protocol: "longmemeval" } });
    expect(lme.status, JSON.stringify(lme.body)).toBe(201);
    expect(lme.body.config.protocol).toBe("longmemeval");
    expect(lme.body.metrics.overall.scored_cases).toBe(1);
    expect(lme.body.metrics.overall.recall.value).toBe(1);
    const lmeCases = (await api.get(`/evals/runs/${lme.body.id}/cases`)).body.data as { case_id: string; question: string; user_id: string; scores: unknown }[];
    expect(lmeCases.filter((c) => c.scores !== null).map((c) => c.user_id)).toEqual(["longmemeval:p_user"]);
    // Only memories of user halves are in LongMemEval's index: the assistant's answer is never ranked.
    for (const c of lmeCases) {
      const detail = (await api.get(`/evals/runs/${lme.body.id}/cases/${c.case_id}`)).body;
      expect(detail.retrieved.map((r: { content: string }) => r.content).filter((t: string) => /Greyhounds such as|Congratulations/.test(t))).toEqual([]);
      expect(detail.retrieved.length).toBeGreaterThan(0);
    }
    // The protocol is part of a run's configuration: two runs under different ones do not compare like with like.
    const cmp = await api.get(`/evals/runs/${lme.body.id}/compare?base=${ours.body.id}`);
    expect(cmp.body.config_changes).toEqual([{ field: "protocol", base: "memscope", head: "longmemeval" }]);

    // LoCoMo: the sample's question without evidence scores 1 (and counts); an evidence id naming no turn is a miss.
    const loc = JSON.parse(fs.readFileSync(path.join(FIX, "locomo-sample.json"), "utf8"));
    loc[0].qa[0].evidence = [...loc[0].qa[0].evidence, "D9:99"];
    expect((await api.post(`/evals/sets/${set.id}/import`, { format: "locomo", content: JSON.stringify(loc) })).status).toBe(201);
    const locSet = (await api.get(`/evals/sets/${set.id}/cases`)).body.data.filter((c: { tags: string[] }) => c.tags.includes("locomo"));
    expect(locSet).toHaveLength(3);
    const locomo = await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 5, protocol: "locomo" } });
    expect(locomo.status, JSON.stringify(locomo.body)).toBe(201);
    const locCases = (await api.get(`/evals/runs/${locomo.body.id}/cases`)).body.data as { question: string; scores: { recall: number } | null }[];
    const byQ = new Map(locCases.map((c) => [c.question, c.scores?.recall ?? null]));
    expect(byQ.get(loc[0].qa[2].question)).toBe(1);
    // One valid evidence id of two: at most a half.
    expect(byQ.get(loc[0].qa[0].question)).toBeLessThanOrEqual(0.5);
    const trec = await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 3, protocol: "trec" } });
    expect([trec.status, trec.body.error.details[0].field]).toEqual([422, "config.protocol"]);
  }, 120_000);

  it("benchmark files of any size: streamed through POST .../import/upload; extraction chat without a chat model is a 409", async () => {
    const p = await owner.post("/projects", { name: `evals upload ${++n}` });
    const key = await owner.key(`up${n}`, ["read", "write"], p.id);
    const api = apiClient(server.url, { authorization: `Bearer ${key}` });
    const upload = (setId: string, query: string, body: string | Uint8Array<ArrayBuffer>, type = "application/octet-stream") =>
      fetch(`${server.url}/api/v1/evals/sets/${setId}/import/upload?${query}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": type }, body }).then(async (r) => ({
        status: r.status,
        body: await r.json(),
      }));
    const sample = fs.readFileSync(path.join(FIX, "longmemeval-sample.json"), "utf8");
    const set = (await api.post("/evals/sets", { name: "uploaded" })).body;
    // Over the JSON route's 24 MB body limit: the sample followed by 25 MB of whitespace (valid JSON).
    const big = new Uint8Array(Buffer.concat([Buffer.from(sample.trimEnd().replace(/\]$/, "")), Buffer.alloc(25 * 1024 * 1024, 0x20), Buffer.from("]\n")]));
    const up = await upload(set.id, "format=longmemeval&extraction=rules", big);
    expect(up.status).toBe(201);
    expect(up.body).toEqual({ cases: 2, skipped: 0, conversations: 3, turns: 4, memories: expect.any(Number), dry_run: false, defects: [], defect_count: 0 });
    expect((await api.get(`/evals/sets/${set.id}/cases`)).body.data).toHaveLength(2);

    expect((await upload(set.id, "format=longmemeval", sample, "text/plain")).status).toBe(415);
    expect((await upload("00000000-0000-4000-8000-000000000000", "format=longmemeval", sample)).status).toBe(404);
    const broken = JSON.parse(sample);
    broken[1].haystack_dates = [];
    const bad = await upload(set.id, "format=longmemeval&user_prefix=broken", JSON.stringify(broken));
    expect([bad.status, bad.body.error.code, bad.body.error.details[0].field]).toEqual([422, "invalid_eval_file", "record 1 (question_id gpt4_2655b836_abs): haystack_dates"]);
    // All or nothing: record 0, good and new (another user prefix), was not written either.
    expect((await api.get(`/evals/sets/${set.id}/cases`)).body.data).toHaveLength(2);
    // A file that is no array of records, read from disk as bytes: named on "content".
    const after = await upload(set.id, "format=longmemeval&user_prefix=after", `${sample.trimEnd()} x`);
    expect([after.status, after.body.error.code, after.body.error.message, after.body.error.details]).toEqual([
      422,
      "invalid_eval_file",
      "longmemeval file: text after the closing ] of the array",
      [{ field: "content", message: "text after the closing ] of the array" }],
    ]);
    // The chat model decides only when there is one.
    const noChat = await upload(set.id, "format=longmemeval&extraction=chat", sample);
    expect([noChat.status, noChat.body.error.code, noChat.body.error.details[0].field]).toEqual([409, "chat_not_configured", "extraction"]);
    const noChatJson = await api.post(`/evals/sets/${set.id}/import`, { format: "longmemeval", content: sample, extraction: "chat" });
    expect([noChatJson.status, noChatJson.body.error.code]).toEqual([409, "chat_not_configured"]);
  }, 120_000);

  it("Memscope's own CI eval: the CLI passes on the demo data today, and a worse configuration (cosine weight 0) fails it, naming the cases it broke", async () => {
    const key = await owner.key(`ci-${kind}`, ["read", "write"]);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "memscope-eval-"));
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), path.join(ROOT, "scripts/eval.ts"), ...args, "--out", out], {
        cwd: ROOT,
        env: { ...process.env, MEMSCOPE_URL: server.url, MEMSCOPE_API_KEY: key },
        encoding: "utf8",
        timeout: 60_000,
      });
    try {
      const ok = cli("--set", "demo", "--cases", "evals/demo.jsonl", "--config", "evals/demo.config.json", "--fail-under", `recall@3=${DEMO_RECALL_AT_3}`);
      expect(ok.stderr).toBe("");
      expect(ok.status, ok.stdout).toBe(0);
      expect(ok.stdout).toMatch(/recall@3\s+0\.706/);
      expect(ok.stdout).toContain(`PASS  recall@3 >= ${DEMO_RECALL_AT_3}`);
      const okRun = JSON.parse(fs.readFileSync(path.join(out, "eval-demo.json"), "utf8")).run.id;
      const worse = cli("--set", "demo", "--config", "evals/no-cosine.config.json", "--compare", "previous", "--allow-config-change", "--fail-under", `recall@3=${DEMO_RECALL_AT_3}`);
      expect(worse.status, worse.stdout + worse.stderr).toBe(1);
      expect(worse.stdout).toMatch(/recall@3 .*WORSE/);
      expect(worse.stdout).toMatch(/newly failed \([1-9]\d*\):\n {4}- /);
      expect(worse.stdout).toContain(`FAIL  recall@3 >= ${DEMO_RECALL_AT_3}`);
      const junit = fs.readFileSync(path.join(out, "eval-demo.junit.xml"), "utf8");
      expect(junit).toMatch(/<testsuite name="demo" tests="19" failures="[1-9]/);
      const json = JSON.parse(fs.readFileSync(path.join(out, "eval-demo.json"), "utf8"));
      expect(json.comparison.regressed).toBe(true);
      // Another configuration (similarity weight 0) compared with the demo's own run: no verdict without --allow-config-change.
      const unlike = cli("--set", "demo", "--config", "evals/no-cosine.config.json", "--compare", okRun, "--fail-under", `recall@3=${DEMO_RECALL_AT_3}`);
      expect(unlike.status, unlike.stdout + unlike.stderr).toBe(2);
      expect(unlike.stdout).toContain("WARNING: the two runs differ in configuration");
      expect(unlike.stdout).toContain('weights: {"similarity":0.6,"recency":0.2,"importance":0.2} in the base run, {"similarity":0,"recency":0.2,"importance":0.2} in this one');
      expect(unlike.stderr).toMatch(/differs in weights; compare runs of one configuration, or pass --allow-config-change/);
      // --import streams a benchmark file to POST .../import/upload (the format from its name).
      fs.copyFileSync(path.join(FIX, "locomo-sample.json"), path.join(out, "locomo10.json"));
      const imp = cli("--set", "cli-import", "--import", path.join(out, "locomo10.json"), "--extraction", "rules", "--user-prefix", `cli-${kind}`, "--no-run");
      expect(imp.status, imp.stdout + imp.stderr).toBe(0);
      expect(imp.stdout).toMatch(/uploaded [\d.]+ MB in [\d.]+ s; the server is importing it/);
      expect(imp.stdout).toMatch(/imported in [\d.]+ s: 3 case\(s\) \(0 already there\), 2 conversation\(s\), 5 turn\(s\)/);
      expect(imp.stdout).toContain("1 defect(s):\n  - record 0 (sample_id conv-26): qa[2].evidence: no evidence ids: nothing to score (unscorable)");
      // --protocol locomo scores as LoCoMo's code: its question without evidence counts (as 1).
      const locomoRun = cli("--set", "cli-import", "--protocol", "locomo");
      expect(locomoRun.status, locomoRun.stdout + locomoRun.stderr).toBe(0);
      expect(locomoRun.stdout).toMatch(/3 cases \(3 scored\), k=10, scored as locomo \(recall = share of evidence ids/);
      const bogus = cli("--set", "cli-import", "--protocol", "trec");
      expect([bogus.status, bogus.stderr.trim()]).toEqual([2, 'eval: --protocol: "trec" is none of memscope, longmemeval, locomo']);
      // --dry-run: every defect listed, nothing written, exit 1 when there are any.
      const dryImp = cli("--set", "cli-import", "--import", path.join(out, "locomo10.json"), "--dry-run", "--user-prefix", `cli-dry-${kind}`);
      expect(dryImp.status, dryImp.stdout + dryImp.stderr).toBe(1);
      expect(dryImp.stdout).toMatch(/read \(dry run, nothing written\) in [\d.]+ s: 3 case\(s\) \(0 already there\)/);
      expect(dryImp.stdout).toContain("1 defect(s):\n  - record 0 (sample_id conv-26): qa[2].evidence: no evidence ids: nothing to score (unscorable)");
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
