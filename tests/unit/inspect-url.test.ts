import { describe, expect, it } from "vitest";
import { DEFAULT_MEMORY, defaultDraft, type StrategyDraft } from "@/client/ui/inspect-model";
import { encodeInspectQuery, parseInspectQuery, type InspectLinkState } from "@/client/ui/inspect-url";

const base = (): InspectLinkState => ({
  src: { tab: "stored", user: "", conversation: "", leaf: "", query: "", memory: { ...DEFAULT_MEMORY } },
  draftA: defaultDraft("token_buffer"),
  draftB: defaultDraft("token_buffer"),
  compare: false,
  model: "gpt-4o",
  reserved: 1024,
});
const parse = (qs: string) => parseInspectQuery(new URLSearchParams(qs));

describe("inspector shared links", () => {
  it("a default view is just its strategy", () => {
    // token_buffer is the default strategy, as in the rest of the app.
    expect(encodeInspectQuery(base())).toBe("strategy=token_buffer");
    expect(parse("")).toEqual(base());
  });

  it("keeps only non-default parameters, with the side they belong to", () => {
    const s = base();
    s.draftA = { ...s.draftA, type: "message_window", message_window: { ...s.draftA.message_window, max_attached_message_count: 4, history_message_truncate_enable: true } };
    s.compare = true;
    s.draftB = { ...defaultDraft("auto_context"), auto_context: { ...defaultDraft().auto_context, last_keep: 4, token_ratio: 0.45 } };
    s.reserved = 2048;
    const qs = new URLSearchParams(encodeInspectQuery(s));
    expect(Object.fromEntries(qs)).toEqual({
      strategy: "message_window",
      "a.max_attached_message_count": "4",
      "a.history_message_truncate_enable": "1",
      compare: "auto_context",
      "b.token_ratio": "0.45",
      "b.last_keep": "4",
      reserved: "2048",
    });
  });

  it("round-trips every parameter of every strategy, the model and the memory options", () => {
    const drafts: StrategyDraft[] = [
      { ...defaultDraft("token_buffer"), token_buffer: { max_token_limit: 0, include_tools: false } },
      {
        ...defaultDraft("message_window"),
        message_window: { max_attached_message_count: 3, history_message_truncate_enable: true, history_message_truncate_length: 120, system_message: "Be brief & kind = 100%", include_tools: false },
      },
      {
        ...defaultDraft("auto_context"),
        auto_context: {
          msg_threshold: 5,
          token_ratio: 1,
          max_token: 4096,
          last_keep: 0,
          large_payload_threshold: 0,
          offload_single_preview: 12,
          min_consecutive_tool_messages: 2,
          min_compression_token_threshold: 0,
          current_round_compression_ratio: 0.5,
          steps: 4,
          hook_wiring: "1.1",
          summarizer: "auto",
        },
      },
      { ...defaultDraft("summary_buffer"), summary_buffer: { msg_threshold: 5, token_ratio: 1, last_keep: 0, offload_tokens: 50, include_tools: false } },
    ];
    for (const a of drafts) {
      for (const b of drafts) {
        const s: InspectLinkState = {
          src: { tab: "paste", user: "ana@example.com", conversation: "", leaf: "", query: "what's my budget?", memory: { ...DEFAULT_MEMORY, enabled: false, k: 12, format: "xml_block", types: ["fact", "skill"], minScore: "0.25" } },
          draftA: a,
          draftB: b,
          compare: true,
          model: "gpt-4.1",
          reserved: 0,
        };
        const back = parse(encodeInspectQuery(s));
        expect(back.draftA[a.type]).toEqual(a[a.type]);
        expect(back.draftB[b.type]).toEqual(b[b.type]);
        expect({ ...back, draftA: undefined, draftB: undefined }).toEqual({ ...s, draftA: undefined, draftB: undefined });
      }
    }
  });

  it("ignores bad values and falls back to the defaults", () => {
    const v = parse(
      [
        "strategy=auto_context",
        "a.msg_threshold=0", // below 1
        "a.token_ratio=1.5", // over 1
        "a.last_keep=2.5", // not an integer
        "a.max_token=abc",
        "a.hook_wiring=2.0", // not a wiring
        "a.include_tools=maybe", // not a parameter of auto_context
        "a.max_token_limit=10", // not a parameter of auto_context
        "compare=nope",
        "b.max_token_limit=500",
        "reserved=-1",
        "model=",
        "m.k=101",
        "m.format=html",
        "m.types=fact,bogus",
        "m.min_score=lots",
        "m.enabled=",
      ].join("&"),
    );
    expect(v.draftA).toEqual(defaultDraft("auto_context"));
    expect(v.compare).toBe(false);
    expect(v.draftB.type).toBe("token_buffer");
    expect(v.draftB.token_buffer.max_token_limit).toBe(500);
    expect(v.reserved).toBe(1024);
    expect(v.model).toBe("gpt-4o");
    expect(v.src.memory).toEqual({ ...DEFAULT_MEMORY, types: ["fact"] });
  });

  it("leaves out what does not belong in a link: invalid numbers, long texts, the other types' parameters, B when not comparing", () => {
    const s = base();
    s.src.query = "x".repeat(301);
    s.draftA = {
      ...s.draftA,
      type: "message_window",
      message_window: { ...s.draftA.message_window, max_attached_message_count: 0, history_message_truncate_length: NaN, system_message: "y".repeat(301) },
      token_buffer: { max_token_limit: 10, include_tools: false },
    };
    s.draftB = { ...s.draftB, token_buffer: { max_token_limit: 10, include_tools: true } };
    s.reserved = NaN;
    s.src.memory = { ...s.src.memory, k: NaN, dryRun: false };
    expect(encodeInspectQuery(s)).toBe("strategy=message_window");
  });

  it("a dry run is never turned off by a link", () => {
    expect(parse("m.dry_run=0&m.enabled=1").src.memory.dryRun).toBe(true);
  });
});
