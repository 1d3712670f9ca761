import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { locomoDate, longMemEvalDate, parseLoCoMo, parseLongMemEval, RecordError } from "@/lib/evals/benchmark-formats";
import { BenchmarkFileError, benchmarkRecords, type BenchmarkChunks } from "@/lib/evals/benchmark-records";

// The published formats (LongMemEval: xiaowu0162/LongMemEval README "Dataset Format";
// LoCoMo: snap-research/locomo data/locomo10.json) read from samples in their exact shape.

const FIX = path.resolve(__dirname, "../fixtures/evals");
const o = { projectId: "p1", prefix: "lme", extraction: "turns" as const };

async function records(file: string, chunkSize: number) {
  const text = fs.readFileSync(path.join(FIX, file), "utf8");
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += chunkSize) chunks.push(text.slice(i, i + chunkSize));
  return values(chunks);
}

async function values(chunks: BenchmarkChunks) {
  const out: unknown[] = [];
  for await (const el of benchmarkRecords(chunks)) {
    expect(el.index).toBe(out.length);
    out.push(el.value);
  }
  return out;
}

/** What reading `text` throws (in chunks of `size` UTF-16 units), and the records read before it. */
async function failure(text: string, size = text.length || 1) {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  const read: unknown[] = [];
  try {
    for await (const el of benchmarkRecords(chunks)) read.push(el.value);
  } catch (e) {
    return { error: e as Error, read };
  }
  throw new Error(`no error reading ${JSON.stringify(text)}`);
}

describe("benchmark formats", () => {
  it("the array is read element by element whatever the chunk boundaries", async () => {
    const whole = await records("longmemeval-sample.json", 1 << 20);
    expect(whole).toHaveLength(2);
    expect(await records("longmemeval-sample.json", 7)).toEqual(whole);
    expect(await records("locomo-sample.json", 3)).toEqual(await records("locomo-sample.json", 1 << 20));
  });

  it("strings with escaped quotes, backslashes and brackets split at every position are read whole", async () => {
    const text = `\uFEFF [ {"a": "x\\"}]{[\\\\", "b": ["\\\\", "\\"]"]}, {"c": "\\u005d"} ] \n`;
    const expected = [{ a: 'x"}]{[\\', b: ["\\", '"]'] }, { c: "]" }];
    for (let cut = 0; cut <= text.length; cut++) expect(await values([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(expected);
    expect(await values(text.split(""))).toEqual(expected);
    // As bytes (an upload read from disk), cut anywhere, inside multi-byte characters too.
    const bytes = Buffer.from(`[{"k": "ünï 🌸 日本 \\\\\\"}"}, {"é": ["]"]}]`, "utf8");
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(await values([bytes.subarray(0, cut), bytes.subarray(cut)]), `byte cut at ${cut}`).toEqual([{ k: 'ünï 🌸 日本 \\"}' }, { é: ["]"] }]);
    }
  });

  it("a file that is no array of records is refused with the evals import's own words, the records before the fault read first", async () => {
    const says = async (text: string, message: string, read: unknown[] = []) => {
      for (const size of [1, 3, text.length || 1]) {
        const f = await failure(text, size);
        expect([f.error.constructor, f.error.message, f.read], `${JSON.stringify(text)} in chunks of ${size}`).toEqual([BenchmarkFileError, message, read]);
      }
    };
    await says("", "the file is empty");
    await says(" \n\t ", "the file is empty");
    await says("\uFEFF", "the file is empty");
    await says('{"a": [1]}', 'the file is not a JSON array (it starts with "{")');
    await says("  x", 'the file is not a JSON array (it starts with "x")');
    await says("🌸[]", 'the file is not a JSON array (it starts with "\\ud83c")');
    await says('[{"a":1}, "text"]', "record 1 is not an object", [{ a: 1 }]);
    await says("[7", "record 0 is not an object");
    await says("[null]", "record 0 is not an object");
    await says('[{"a":1}, {"b":', "the array is not closed (the file ends inside record 1)", [{ a: 1 }]);
    await says('[{"a":1},', "the array is not closed (the file ends inside record 1)", [{ a: 1 }]);
    await says("[ ", "the array is not closed (the file ends inside record 0)");
    await says('[{"a":1}] \n x', "text after the closing ] of the array", [{ a: 1 }]);
    await says("[] ]", "text after the closing ] of the array");
    // Commas JSON does not allow: refused (the text scanner before let these through).
    await says('[{"a":1} {"b":2}]', 'unexpected "{" after record 0', [{ a: 1 }]);
    await says('[{"a":1},]', 'unexpected "]" after record 0', [{ a: 1 }]);
    await says("[,{}]", 'unexpected "," after the opening [');
    // A record JSON.parse refuses is named with JSON.parse's own words.
    const f = await failure('[{"a":1}, {"b": tru}]', 2);
    expect(f.read).toEqual([{ a: 1 }]);
    expect(f.error).toBeInstanceOf(RecordError);
    expect(f.error.message).toMatch(/^record 1: \(record\): not valid JSON \(Unexpected token/);
  });

  it("LongMemEval: sessions, paired turns, memories per turn, evidence from has_answer (else none)", async () => {
    const [a, b] = await records("longmemeval-sample.json", 64);
    const r = parseLongMemEval(a, 0, o);
    expect(r.userId).toBe("lme:e47becba");
    expect(r.conversations.map((c) => [c.name, c.created_at, c.turns.length])).toEqual([
      ["sharegpt_yywfCHi_0", "2023-05-20T02:21:00.000Z", 2],
      ["answer_280352e9", "2023-05-22T18:05:00.000Z", 1],
    ]);
    expect(r.memories).toHaveLength(6);
    const [c] = r.cases;
    expect(c.category).toBe("single-session-user");
    expect(c.expected.turns).toEqual([{ conversation_id: r.conversations[1].id, message_id: r.conversations[1].turns[0].id, labelled: "user" }]);
    expect(r.conversations[1].turns[0].query).toMatch(/^I graduated with a degree in Business Administration/);
    const abs = parseLongMemEval(b, 1, o);
    expect(abs.cases[0].expected.turns).toEqual([]);
    expect(abs.cases[0].tags).toContain("abstention");
    expect([abs.conversations.length, abs.conversations[0].turns.length, abs.memories.length]).toEqual([1, 1, 2]);
  });

  it("LoCoMo: sessions with their dates, one turn per dia_id, evidence by dia_id, categories", async () => {
    const [s] = await records("locomo-sample.json", 50);
    const r = parseLoCoMo(s, 0, { ...o, prefix: "locomo" });
    expect(r.userId).toBe("locomo:conv-26");
    expect(r.conversations.map((c) => [c.created_at, c.turns.length])).toEqual([
      ["2023-05-08T13:56:00.000Z", 3],
      ["2023-05-25T19:55:00.000Z", 2],
    ]);
    expect(r.memories).toHaveLength(5);
    expect(r.memories[2].content).toBe("Melanie: I painted a sunrise last year, it is my favourite. [shares a photo of a painting of a sunrise over a lake]");
    const turn = (sess: number, i: number) => ({ conversation_id: r.conversations[sess].id, message_id: r.conversations[sess].turns[i].id });
    expect(r.cases.map((c) => [c.category, c.expected.turns])).toEqual([
      ["temporal", [turn(0, 2)]],
      ["multi_hop", [turn(1, 1), turn(0, 0)]],
      ["adversarial", []],
    ]);
  });

  it("references that name nothing are defects of their question; a question left without evidence is tagged unscorable", async () => {
    const [a, b] = await records("longmemeval-sample.json", 1 << 20);
    expect(parseLongMemEval(a, 0, o).defects).toEqual([]);
    // An abstention question may have no evidence: not a defect.
    expect(parseLongMemEval(b, 1, o).defects).toEqual([]);
    const extra = { ...JSON.parse(JSON.stringify(a)), answer_session_ids: ["answer_280352e9", "nowhere_1", "nowhere_2"] };
    const r = parseLongMemEval(extra, 3, o);
    expect(r.defects).toEqual([
      { record: "record 3 (question_id e47becba)", external_id: "longmemeval:e47becba", field: "answer_session_ids", message: 'session "nowhere_1" is not in haystack_session_ids', unscorable: false },
      { record: "record 3 (question_id e47becba)", external_id: "longmemeval:e47becba", field: "answer_session_ids", message: 'session "nowhere_2" is not in haystack_session_ids', unscorable: false },
    ]);
    expect(r.cases[0].expected.turns).toHaveLength(1);
    // No has_answer mark and only sessions the haystack lacks: nothing left to score.
    const none = JSON.parse(JSON.stringify(a));
    for (const sess of none.haystack_sessions) for (const t of sess) delete t.has_answer;
    none.answer_session_ids = ["nowhere_1"];
    const u = parseLongMemEval(none, 0, o);
    expect(u.defects.map((d) => [d.field, d.unscorable])).toEqual([["answer_session_ids", true]]);
    expect(u.cases[0].tags).toEqual(["longmemeval", "unscorable"]);

    const [s] = await records("locomo-sample.json", 1 << 20);
    const loc = JSON.parse(JSON.stringify(s));
    loc.qa[0].evidence = ["D1:3; D7:1"];
    loc.qa[1].evidence = ["D9:9"];
    const l = parseLoCoMo(loc, 0, { ...o, prefix: "locomo" });
    expect(l.defects.map((d) => [d.external_id, d.field, d.message, d.unscorable])).toEqual([
      ["locomo:conv-26:0", "qa[0].evidence", '"D7:1" names no turn of this conversation', false],
      ["locomo:conv-26:1", "qa[1].evidence", '"D9:9" names no turn of this conversation', true],
      ["locomo:conv-26:2", "qa[2].evidence", "no evidence ids: nothing to score", true],
    ]);
    expect(l.cases.map((c) => c.tags.includes("unscorable"))).toEqual([false, true, true]);
  });

  it("malformed records are named: the record, its id and the field", async () => {
    const [a] = await records("longmemeval-sample.json", 1 << 20);
    const bad = JSON.parse(JSON.stringify(a));
    bad.haystack_dates[1] = "yesterday";
    expect(() => parseLongMemEval(bad, 4, o)).toThrow(new RecordError("record 4 (question_id e47becba)", "haystack_dates[1]", 'not a date like "2023/05/20 (Sat) 02:21"'));
    delete bad.question;
    expect(() => parseLongMemEval(bad, 4, o)).toThrow(/record 4 \(question_id e47becba\): question: missing/);
    expect(() => parseLoCoMo({ sample_id: "x", conversation: { session_1: [{ speaker: "A", text: "hi" }], session_1_date_time: "1:56 pm on 8 May, 2023" } }, 2, o)).toThrow(
      /record 2 \(sample_id x\): conversation\.session_1\[0\]\.dia_id: missing/,
    );
    expect(longMemEvalDate("2023/05/20 (Sat) 02:21")).toBe("2023-05-20T02:21:00.000Z");
    expect(locomoDate("10:37 am on 27 June, 2023")).toBe("2023-06-27T10:37:00.000Z");
  });
});
