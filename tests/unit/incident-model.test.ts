import { describe, expect, it } from "vitest";
import { chartDays, encodeIncidentQuery, evidenceParts, evidenceText, incidentsHref, NO_FILTERS, nextStatuses, ordinal, parseIncidentQuery } from "@/client/ui/incident-model";

// The incidents inbox (issue 38, item 4): evidence in plain words, the chart's days, the
// filters in the URL.

describe("incident evidence in plain words", () => {
  // The evidence fields are lib/incidents/rules.ts's, per kind.
  it("says a missed memory's age, rank, k and the agent's answer (the sentence with the absence phrase)", () => {
    const parts = evidenceParts("missed_memory", {
      memory: { id: "m1", content: "Prefers aisle seats", created_at: "2026-10-02T09:00:00.000Z" },
      prompt_source: "replayed",
      rank: 14,
      k: 10,
      absence_phrase: "I don't know",
      answer: "Happy to help! I don't know your seat preference. Shall I pick one?",
    });
    expect(evidenceText(parts)).toBe("Prefers aisle seats existed since Oct 2 and ranked 14th; k was 10; the agent answered “I don't know your seat preference.”");
    expect(parts[0]).toEqual({ memory: "Prefers aisle seats", id: "m1" });
  });

  it("says a captured prompt lacked the memory, and quotes the user's restatement", () => {
    const base = { memory: { id: "m2", content: "Vegetarian", created_at: "2026-09-01T00:00:00Z" } };
    expect(evidenceText(evidenceParts("missed_memory", { ...base, prompt_source: "captured", answer: "Any dish is fine." }))).toBe(
      "Vegetarian existed since Sep 1 but was not in the prompt the agent sent; the agent answered “Any dish is fine.”",
    );
    expect(evidenceText(evidenceParts("restated_memory", { ...base, prompt_source: "replayed", rank: null, k: 5, query: "I'm vegetarian, remember" }))).toBe(
      "The user wrote “I'm vegetarian, remember”, yet Vegetarian was stored since Sep 1 but was not ranked; k was 5.",
    );
  });

  it("names a stale memory and its correction, a dropped reference and an over-long prompt", () => {
    expect(evidenceText(evidenceParts("stale_memory", { memory: { id: "m3", content: "Lives in Lisbon" }, correcting_query: "no, I moved to Porto" }))).toBe(
      "Lives in Lisbon was in the prompt; the user corrected it: “no, I moved to Porto”.",
    );
    expect(
      evidenceText(evidenceParts("dropped_reference", { reference_phrase: "as I said", referenced_query: "Book the Hotel Infante", referenced_at: "2026-11-03T10:00:00Z", dropped_turns: 6, history_turns: 9 })),
    ).toBe("The user referred back with “as I said” to “Book the Hotel Infante” (Nov 3), which the history window had dropped (6 of 9 earlier turns out).");
    expect(evidenceText(evidenceParts("over_context_window", { tokens: 130000, context_window: 128000, reserved_output_tokens: 4096, model: "gpt-4o" }))).toBe(
      "The prompt took 130,000 tokens; gpt-4o's window is 128,000 less 4,096 reserved for the answer, so it was 6,096 over.",
    );
  });

  it("says nothing rather than something wrong for evidence it does not know", () => {
    expect(evidenceParts("missed_memory", null)).toEqual([]);
    expect(evidenceParts("missed_memory", { something_else: 1 })).toEqual([]);
    expect(evidenceParts("no_such_kind", { memory: { content: "x" } })).toEqual([]);
  });

  it("orders numbers as words do", () => {
    expect([1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 101, 111].map(ordinal)).toEqual(["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "14th", "21st", "22nd", "23rd", "101st", "111th"]);
  });

  it("offers the statuses an incident can move to, never its own", () => {
    expect(nextStatuses("open")).toEqual(["acknowledged", "resolved", "false_positive"]);
    expect(nextStatuses("resolved")).toEqual(["open"]);
    expect(nextStatuses("false_positive")).toEqual(["open"]);
  });
});

describe("the chart's days", () => {
  it("fills every day of the range, oldest first, and sums kinds per day", () => {
    const today = Date.parse("2026-11-29T12:00:00Z");
    const days = chartDays(
      [
        { day: "2026-11-29", kind: "missed_memory", count: 2 },
        { day: "2026-11-29", kind: "stale_memory", count: 1 },
        { day: "2026-11-27", kind: "missed_memory", count: 4 },
        { day: "2026-10-01", kind: "missed_memory", count: 9 },
        { day: "2026-11-28", kind: "unknown_kind", count: 9 },
      ],
      3,
      today,
    );
    expect(days).toEqual([
      { day: "2026-11-27", counts: { missed_memory: 4 }, total: 4 },
      { day: "2026-11-28", counts: {}, total: 0 },
      { day: "2026-11-29", counts: { missed_memory: 2, stale_memory: 1 }, total: 3 },
    ]);
  });
});

describe("the inbox's URL", () => {
  it("round-trips filters and drops unknown values", () => {
    const f = { kind: "stale_memory", status: "false_positive", severity: "high", user_id: "ana@example.com", app_id: "travel", conversation_id: "c1" } as const;
    expect(parseIncidentQuery(new URLSearchParams(encodeIncidentQuery(f)))).toEqual(f);
    expect(parseIncidentQuery(new URLSearchParams("kind=magic&status=closed&severity=urgent"))).toEqual(NO_FILTERS);
    expect(encodeIncidentQuery(NO_FILTERS)).toBe("");
    expect(incidentsHref({ conversation_id: "c1" })).toBe("/incidents?status=all&conversation=c1");
  });
});
