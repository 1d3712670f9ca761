import fs from "node:fs";

// A LongMemEval-format file (github.com/xiaowu0162/LongMemEval, README "Dataset Format") of
// about `mb` MB, written as a stream: a JSON array of questions, each with its haystack of
// 40 sessions of 5 user/assistant pairs, one turn marked has_answer, the dates in the
// published "2023/05/20 (Sat) 02:21" form. About one user statement per session is one the
// rule-based extractor turns into a memory. Generated, never committed (bench:evals;
// `npx tsx bench/gen-longmemeval.ts FILE MB` writes one by itself).

const WORDS = "travel budget flight hotel museum coffee garden recipe bicycle violin marathon degree office project weekend concert".split(" ");

export async function writeLongMemEvalFile(file: string, mb: number): Promise<{ questions: number; bytes: number }> {
  const out = fs.createWriteStream(file);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once("drain", () => r())));
  let bytes = 0;
  let q = 0;
  await write("[\n");
  while (bytes < mb * 1024 * 1024) {
    const sessions: unknown[] = [];
    const ids: string[] = [];
    const dates: string[] = [];
    for (let s = 0; s < 40; s++) {
      const turns: unknown[] = [];
      for (let t = 0; t < 5; t++) {
        const w = (k: number) => WORDS[(q * 7 + s * 3 + t + k) % WORDS.length];
        const stated = t === 2 ? `I prefer ${w(1)} over ${w(2)}. ` : "";
        turns.push({ role: "user", content: `${stated}${`Tell me more about the ${w(4)} options near the ${w(5)} for my ${w(3)} plan. `.repeat(4)}`, ...(s === 7 && t === 2 ? { has_answer: true } : {}) });
        turns.push({ role: "assistant", content: `Here are some ideas about ${w(1)}, ${w(2)} and ${w(6)}: `.repeat(12) });
      }
      sessions.push(turns);
      ids.push(`session_${q}_${s}`);
      dates.push(`2023/05/${String(1 + (s % 28)).padStart(2, "0")} (Mon) ${String(s % 24).padStart(2, "0")}:15`);
    }
    const rec = JSON.stringify({
      question_id: `bench_${q}`,
      question_type: "single-session-user",
      question: `What is my ${WORDS[q % WORDS.length]} plan?`,
      answer: "x",
      question_date: "2023/06/01 (Thu) 10:00",
      haystack_session_ids: ids,
      haystack_dates: dates,
      haystack_sessions: sessions,
      answer_session_ids: [ids[7]],
    });
    await write(`${q ? ",\n" : ""}${rec}`);
    bytes += rec.length + 2;
    q++;
  }
  await write("\n]\n");
  await new Promise<void>((r) => out.end(() => r()));
  return { questions: q, bytes: fs.statSync(file).size };
}
