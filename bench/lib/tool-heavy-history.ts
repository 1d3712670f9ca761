import type { RoleMessage } from "../../lib/strategies/schemas";

/**
 * A tool-heavy agent history of `size` messages: rounds of a question, 6 to 9 tool calls
 * and an answer; it ends with a question. Tool results are `minLines` to
 * `minLines + spread` lines of ~60 characters, in turn log lines with request ids, JSON
 * records with random ids, and source code, so a tokenizer meets both repeated words
 * and pieces it has never seen. `variant` seeds the random parts: each variant is new
 * text (no cached count of a whole message helps).
 */
export function toolHeavyHistory(size: number, minLines: number, spread: number, variant = 0): RoleMessage[] {
  let seed = 7 + variant * 7919;
  const r = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const hex = (n: number) => Array.from({ length: n }, () => "0123456789abcdef"[Math.floor(r() * 16)]).join("");
  const line = (kind: number, round: number, k: number, l: number) => {
    if (kind === 0) return `2026-11-23T08:${String(l % 60).padStart(2, "0")}:${String(k * 7 % 60).padStart(2, "0")}Z INFO req=${hex(12)} latency_ms=${Math.floor(r() * 900)} status=${r() < 0.9 ? 200 : 503}\n`;
    if (kind === 1) return `  {"id": "${hex(8)}-${hex(4)}", "sku": "SKU-${Math.floor(r() * 1e5)}", "qty": ${Math.floor(r() * 40)}, "ok": ${r() < 0.8}},\n`;
    return `  const v${l} = await client.get(\`/api/items/\${id}\`, { retries: ${Math.floor(r() * 5)} }); // round ${round}\n`;
  };
  const out: RoleMessage[] = [];
  let round = 0;
  while (out.length < size) {
    round++;
    out.push({ role: "user", content: `Round ${round}: check the ${["payments", "inventory", "checkout"][round % 3]} service and report.` });
    const calls = 6 + Math.floor(r() * 4);
    for (let k = 0; k < calls && out.length < size - 1; k++) {
      const id = `call_${round}_${k}_${hex(6)}`;
      const kind = k % 3;
      out.push({ role: "assistant", content: "", tool_calls: [{ id, name: ["query_logs", "query_db", "read_file"][kind], arguments: JSON.stringify({ path: `src/mod${k}.ts`, since: "08:00" }) }] });
      const lines = minLines + Math.floor(r() * spread);
      let text = "";
      for (let l = 0; l < lines; l++) text += line(kind, round, k, l);
      out.push({ role: "tool", tool_call_id: id, content: text });
    }
    out.push({ role: "assistant", content: `Round ${round} done: nothing unusual in the logs.` });
  }
  out.length = size;
  if (out.at(-1)!.role === "assistant" && !out.at(-1)!.tool_calls) out[size - 1] = { role: "user", content: "And now?" };
  return out;
}
