import { describe, expect, it } from "vitest";
import { parseLoCoMo, parseLongMemEval } from "@/lib/evals/benchmark-formats";
import type { MemoryFacts } from "@/lib/evals/metrics";
import { scoreLoCoMo, scoreLongMemEval, searchDepth } from "@/lib/evals/protocols";
import type { EvalCase } from "@/lib/evals/schemas";

// Scoring as the benchmarks' own code does (issue 40, item 9), against values worked out by
// hand from LongMemEval's src/retrieval/eval_utils.py and run_retrieval.py and LoCoMo's
// task_eval/evaluation.py (branch "code").

const C = "00000000-0000-4000-8000-00000000000c";
const t = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const mem = (turn: number | null, half: "user" | "assistant" | null = "user", id = `m${turn}-${half}`): MemoryFacts => ({
  id,
  content: id,
  source_conversation_id: turn === null ? null : C,
  source_message_id: turn === null ? null : t(turn),
  source_half: half,
});
const kase = (turns: { n: number; labelled?: "user" | "assistant" | "both" }[], tags: string[] = []): Pick<EvalCase, "expected" | "tags"> => ({
  expected: { memory_ids: [], texts: [], turns: turns.map((x) => ({ conversation_id: C, message_id: t(x.n), ...(x.labelled ? { labelled: x.labelled } : {}) })) },
  tags,
});

describe("the longmemeval protocol", () => {
  it("ranks user turns only, counts user-labelled targets, recall is recall_all and hit recall_any, nDCG weighs ranks 1 and 2 alike", () => {
    // Targets: turns 1 and 2 (user-labelled); turn 9 is labelled on the assistant's side only.
    const c = kase([{ n: 1, labelled: "user" }, { n: 2, labelled: "both" }, { n: 9, labelled: "assistant" }]);
    // Retrieved: an assistant-half memory of turn 9 (not in LongMemEval's index), turn 5, a
    // second memory of turn 5, a memory of no turn, turn 1, turn 7, turn 2.
    const retrieved = [mem(9, "assistant"), mem(5), mem(5, "user", "m5b"), mem(null, null), mem(1), mem(7), mem(2)];
    // k = 3: ranking [5, 1, 7] -> rel [0, 1, 0]; turn 2 is past k.
    const o = scoreLongMemEval(c, retrieved, 3);
    expect(o.expected_ranks.map((r) => r.rank)).toEqual([2, null]);
    expect(o.hit).toBe(true); // recall_any@3
    expect(o.scores!.recall).toBe(0); // recall_all@3: turn 2 missing
    // DCG = 0 + 1/log2(2) = 1 (rank 2 weighs 1); IDCG over 2 targets = 1 + 1 = 2.
    expect(o.scores!.ndcg).toBeCloseTo(0.5, 12);
    expect(o.scores!.precision).toBeCloseTo(1 / 3, 12);
    expect(o.scores!.rr).toBe(0.5);
    // The memories behind the three ranked turns, turn 5's two included.
    expect(o.shown).toEqual([1, 2, 4, 5]);
    expect(o.relevant).toEqual([false, false, false, false, true, false, false]);
    // k = 4: ranking [5, 1, 7, 2] -> every target in: recall_all 1; DCG = 1 + 1/log2(4) = 1.5.
    const o4 = scoreLongMemEval(c, retrieved, 4);
    expect(o4.scores!.recall).toBe(1);
    expect(o4.scores!.ndcg).toBeCloseTo(1.5 / 2, 12);
  });

  it("leaves out abstention questions and questions with no user-labelled turn", () => {
    const retrieved = [mem(1)];
    expect(scoreLongMemEval(kase([{ n: 1, labelled: "user" }], ["longmemeval", "abstention"]), retrieved, 5).scores).toBeNull();
    expect(scoreLongMemEval(kase([{ n: 1, labelled: "assistant" }]), retrieved, 5).scores).toBeNull();
    // Evidence taken from answer_session_ids (no label) is no target of LongMemEval's.
    expect(scoreLongMemEval(kase([{ n: 1 }]), retrieved, 5).hit).toBeNull();
  });

  it("a LongMemEval record's evidence keeps the labelled half, and each memory the half it was made from", () => {
    const rec = parseLongMemEval(
      {
        question_id: "q1",
        question_type: "single-session-user",
        question: "Where did I go?",
        answer: "Porto",
        haystack_session_ids: ["answer_s1"],
        haystack_dates: ["2023/05/20 (Sat) 02:21"],
        haystack_sessions: [
          [
            { role: "user", content: "I went to Porto.", has_answer: true },
            { role: "assistant", content: "Nice!" },
            { role: "user", content: "Hello" },
            { role: "assistant", content: "You said Porto.", has_answer: true },
          ],
        ],
        answer_session_ids: ["answer_s1"],
      },
      0,
      { projectId: "p", prefix: "lme", extraction: "turns" },
    );
    expect(rec.cases[0].expected.turns.map((x) => x.labelled)).toEqual(["user", "assistant"]);
    expect(rec.memories.map((m) => [m.content, m.half])).toEqual([
      ["I went to Porto.", "user"],
      ["Nice!", "assistant"],
      ["Hello", "user"],
      ["You said Porto.", "assistant"],
    ]);
  });
});

describe("the locomo protocol", () => {
  it("recall is the share of the file's evidence ids among the first k turns (ids naming no turn are misses), a question without evidence scores 1", () => {
    const retrieved = [mem(3), mem(3, "user", "m3b"), mem(4), mem(1), mem(2)];
    // Evidence: turns 1 and 2 valid, one id that names no turn: three entries.
    const c = kase([{ n: 1 }, { n: 2 }], ["locomo", "locomo-evidence:3"]);
    // k = 3: ranking [3, 4, 1] -> one of three entries.
    const o = scoreLoCoMo(c, retrieved, 3);
    expect(o.scores!.recall).toBeCloseTo(1 / 3, 12);
    expect(o.hit).toBe(true);
    expect(o.shown).toEqual([0, 1, 2, 3]);
    expect(scoreLoCoMo(c, retrieved, 4).scores!.recall).toBeCloseTo(2 / 3, 12);
    // All ids named no turn: 0, not left out.
    expect(scoreLoCoMo(kase([], ["locomo", "locomo-evidence:2", "unscorable"]), retrieved, 3).scores!.recall).toBe(0);
    // No evidence at all: 1, as LoCoMo's evaluation.py counts it.
    expect(scoreLoCoMo(kase([], ["locomo", "locomo-evidence:0", "unscorable"]), retrieved, 3).scores!.recall).toBe(1);
  });

  it("a LoCoMo question records how many evidence ids the file gave", () => {
    const rec = parseLoCoMo(
      {
        sample_id: "s1",
        conversation: {
          speaker_a: "A",
          speaker_b: "B",
          session_1_date_time: "1:56 pm on 8 May, 2023",
          session_1: [
            { speaker: "A", dia_id: "D1:1", text: "I adopted a cat." },
            { speaker: "B", dia_id: "D1:2", text: "Lovely." },
          ],
        },
        qa: [
          { question: "What pet?", answer: "a cat", evidence: ["D1:1", "D9:9"], category: 4 },
          { question: "Nothing?", answer: "no", evidence: [], category: 5 },
        ],
      },
      0,
      { projectId: "p", prefix: "locomo", extraction: "turns" },
    );
    expect(rec.cases.map((c) => c.tags.find((x) => x.startsWith("locomo-evidence:")))).toEqual(["locomo-evidence:2", "locomo-evidence:0"]);
  });
});

describe("protocol runs read deeper than k", () => {
  it("to rank k distinct turns", () => {
    expect(searchDepth("memscope", 10)).toBe(10);
    expect(searchDepth("longmemeval", 10)).toBe(40);
    expect(searchDepth("locomo", 50)).toBe(100);
  });
});
