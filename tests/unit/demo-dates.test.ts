import { describe, expect, it } from "vitest";
import { demoMemoryCreatedAt } from "../../lib/demo/demo-clock";
import { demoConversations } from "../../lib/demo/demo-data";
import { DEMO_MEMORIES } from "../../lib/demo/demo-memories";
import { toolAgentDemo } from "../../lib/demo/demo-tool-agent";

// The demo's memories are dated "n days before the seed"; its turns must move with them, or a
// replay of the same demo turn shows other memories from one month to the next (and the tests
// and screenshots built on it break on a date nobody chose).

/** For every demo memory and every demo turn: did the memory exist when the turn was sent? */
function existedAtTurns(now: number): string[] {
  const turns = [...demoConversations(now), toolAgentDemo(now)].flatMap((d) => d.turns.map((t) => ({ id: t.id!, at: Date.parse(t.created_at!) })));
  return DEMO_MEMORIES.flatMap((m) => turns.map((t) => `${m.content.slice(0, 24)}|${t.id}|${demoMemoryCreatedAt(now, m.createdDaysAgo) < t.at}`));
}

describe("demo dates", () => {
  it("keep each memory before or after each turn whatever the day and hour of the seed", () => {
    const today = existedAtTurns(Date.parse("2026-11-29T00:05:00Z"));
    expect(today.length).toBeGreaterThan(10_000);
    for (const when of ["2026-11-29T23:55:00Z", "2026-12-31T12:00:00Z", "2027-03-01T06:30:00Z", "2028-02-29T18:00:00Z"]) {
      expect(existedAtTurns(Date.parse(when)), when).toEqual(today);
    }
  });

  it("date every turn before the seed, the tool agent's log lines on its own day", () => {
    const now = Date.parse("2027-05-10T09:00:00Z");
    for (const d of [...demoConversations(now), toolAgentDemo(now)]) for (const t of d.turns) expect(Date.parse(t.created_at!)).toBeLessThan(now);
    const agent = toolAgentDemo(now);
    const day = agent.turns[0].created_at!.slice(0, 10);
    const text = JSON.stringify(agent.turns);
    expect(text.includes(`${day}T08:`), `log lines dated ${day}`).toBe(true);
    expect(text.includes("2026-10-20"), "a fixed calendar date left in the logs").toBe(false);
  });
});
