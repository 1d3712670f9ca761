import type { DemoConversation } from "./demo-data";
import { demoId } from "./demo-data";
import { demoEpoch } from "./demo-clock";

// A tool-using agent (an on-call assistant debugging a checkout outage): 14 rounds,
// 88 tool calls, file reads and log queries of several thousand characters. At
// AgentScope's own AutoContextMemory defaults (100 messages, 50 kept, runs of more
// than 6 tool messages of 5 000+ estimated tokens) its replay compresses old tool
// runs and offloads the largest results. Deterministic, like the other demos.

export const TOOL_AGENT_DEMO_ID = "0f5a7c1e-1d2b-4c3d-8e9f-000000000007";

const C = 7;
// Nineteen days after the first demo conversation, an hour later in the day; set by
// toolAgentDemo() for the build in progress (see demo-clock.ts).
let T0 = 0;
/** The outage day, as its logs write it (yyyy-mm-dd). */
let DAY = "";
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SERVICES = ["checkout-api", "payments-worker", "inventory-svc", "cart-cache"];
const FILES = ["src/checkout/handler.ts", "src/payments/retry.ts", "config/checkout.yaml", "src/inventory/reserve.ts", "deploy/checkout.helm.yaml", "src/cart/cache.ts"];
const LEVELS = ["INFO", "INFO", "INFO", "WARN", "ERROR"];

function logLines(r: () => number, service: string, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const lvl = LEVELS[Math.floor(r() * LEVELS.length)];
    const ms = Math.floor(r() * 900) + 20;
    const order = Math.floor(r() * 90_000) + 10_000;
    out.push(
      `${DAY}T08:${String(10 + (i % 50)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z ${lvl} ${service} order=${order} latency_ms=${ms}` +
        (lvl === "ERROR" ? ` error="upstream payments timeout after 30000ms" retry=${Math.floor(r() * 3)}` : ` status=${lvl === "WARN" ? 429 : 200}`),
    );
  }
  return out.join("\n");
}

function fileText(r: () => number, path: string, lines: number): string {
  const out = [`// ${path}`];
  for (let i = 1; i < lines; i++) {
    const n = Math.floor(r() * 1000);
    out.push(`${String(i).padStart(3, " ")}  const step${i} = await runStage("${path.split("/").pop()}-${n}", { timeoutMs: ${1000 + n * 10}, retries: ${n % 4} });`);
  }
  return out.join("\n");
}

type Call = { id: string; name: string; arguments: Record<string, unknown>; result: string };

function toolCall(r: () => number, round: number, k: number): Call {
  const id = `call_r${round}_${k}`;
  const pick = <T,>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  switch (k % 5) {
    case 0: {
      const path = pick(FILES);
      return { id, name: "read_file", arguments: { path }, result: fileText(r, path, 28 + Math.floor(r() * 10)) };
    }
    case 1: {
      const service = pick(SERVICES);
      // Every fourth log query is a large payload (over 5 120 characters).
      const lines = round % 4 === 1 && k === 1 ? 75 : 22 + Math.floor(r() * 8);
      return { id, name: "query_logs", arguments: { service, since: `${DAY}T08:00:00Z`, level: "WARN+" }, result: logLines(r, service, lines) };
    }
    case 2: {
      const pattern = pick(["timeoutMs", "retries", "PAYMENTS_URL", "circuitBreaker"]);
      const hits = Array.from({ length: 18 + Math.floor(r() * 8) }, (_, i) => `${pick(FILES)}:${10 + i * 7}: ${pattern} = ${Math.floor(r() * 5000)} // set by ${pick(["a.ng", "j.kim", "r.ortiz"])} in #${4000 + Math.floor(r() * 900)}`);
      return { id, name: "grep", arguments: { pattern, path: "src/" }, result: hits.join("\n") };
    }
    case 3: {
      const suite = pick(["checkout", "payments", "inventory"]);
      const cases = Array.from({ length: 24 + Math.floor(r() * 8) }, (_, i) => `${r() < 0.15 ? "FAIL" : "ok  "} ${suite}.spec.ts > case ${i + 1}: ${pick(["reserves stock", "charges card", "retries on 503", "releases hold", "times out cleanly"])} (${Math.floor(r() * 400)} ms)`);
      return { id, name: "run_tests", arguments: { suite, bail: false }, result: cases.join("\n") };
    }
    default: {
      const url = `https://status.internal/${pick(SERVICES)}/metrics`;
      const rows = Array.from({ length: 20 + Math.floor(r() * 6) }, (_, i) => `p50=${40 + Math.floor(r() * 60)}ms p95=${200 + Math.floor(r() * 900)}ms p99=${900 + Math.floor(r() * 4000)}ms errors=${Math.floor(r() * 40)} minute=${i}`);
      return { id, name: "http_get", arguments: { url }, result: rows.join("\n") };
    }
  }
}

const ROUNDS: [string, string, number][] = [
  ["Checkout is failing for some users since 08:10. Can you find out why?", "Payments calls from checkout-api time out after 30 s; the errors started with deploy 4127, which lowered the payments timeout budget.", 7],
  ["Which deploy changed the timeout?", "Deploy 4127 (r.ortiz) changed timeoutMs in config/checkout.yaml from 45000 to 30000 and removed one retry.", 6],
  ["Is inventory affected too?", "Inventory reservations succeed, but holds are released late when checkout times out, so stock looks low for about two minutes.", 7],
  ["Show me the error rate over the last hour.", "Errors peaked at 38 per minute around 08:35 and are now around 12 per minute; p99 latency is above 4 s.", 5],
  ["Do the payments tests pass on main?", "Two payments tests fail on main: 'retries on 503' and 'times out cleanly', both because of the lowered timeout.", 6],
  ["What does the retry code do on a 503?", "src/payments/retry.ts retries twice with a fixed 500 ms delay and no jitter; with 30 s timeouts that exceeds the checkout budget.", 7],
  ["Could the cart cache be involved?", "No: cart-cache latency is flat (p95 about 210 ms) and its hit rate did not change during the incident.", 6],
  ["Draft a fix for the timeout.", "Restore timeoutMs to 45000 in config/checkout.yaml, put back the second retry with jittered backoff, and add a circuit breaker around payments.", 7],
  ["Apply the config change on a branch and run the tests.", "On branch fix/checkout-timeout the config is restored; all checkout and payments tests pass except one flaky inventory case.", 6],
  ["Why is that inventory test flaky?", "It asserts the hold is released within 100 ms, but the release runs after an async event; the test should await the event.", 5],
  ["Fix the flaky test as well.", "The inventory test now awaits the release event; the suite passed five runs in a row.", 6],
  ["Check the helm values before we deploy.", "deploy/checkout.helm.yaml still sets PAYMENTS_TIMEOUT_MS=30000 as an env override; it must be removed or it wins over the config.", 7],
  ["Remove the override and give me a rollout plan.", "Override removed. Roll out to 10% of pods, watch payments errors and p99 for 15 minutes, then 50%, then 100%.", 6],
  ["Write the incident summary for the channel.", "Checkout outage 08:10 to 09:40: deploy 4127 lowered the payments timeout; fixed by restoring it, removing a helm override, and adding jittered retries.", 7],
];

/** The tool agent's conversation, dated relative to `now` (the seed's moment). */
export function toolAgentDemo(now = Date.now()): DemoConversation {
  T0 = demoEpoch(now) + 19 * 86_400_000 + 3_600_000;
  DAY = new Date(T0).toISOString().slice(0, 10);
  const r = rng(2026);
  return {
    conversation: {
      id: TOOL_AGENT_DEMO_ID,
      app_id: "oncall-agent",
      end_user_id: "sam@example.com",
      name: "Checkout outage: a tool-using agent (88 tool calls)",
      mode: "agent-chat",
      model_config: { model: "gpt-4o" },
      status: "active",
    },
    turns: ROUNDS.map(([query, answer, calls], i) => ({
      id: demoId(C, i + 1),
      parent_message_id: i === 0 ? null : demoId(C, i),
      query,
      answer,
      created_at: at(i * 6),
      metadata: { tool_calls: Array.from({ length: calls }, (_, k) => toolCall(r, i + 1, k)) },
    })),
  };
}
