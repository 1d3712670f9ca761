import { describe, expect, it } from "vitest";
import { messageOverhead, TOKENS_PER_MESSAGE } from "@/lib/tokens/chat-formula";
import { countTextTokens } from "@/lib/tokens/count-tokens";
import { ENCODINGS } from "@/lib/tokens/registry";

// messageOverhead knows the four roles' tokens without a tokenizer (a table): the table must be
// what tiktoken says, in both encodings.
describe("a message's framing tokens by role", () => {
  it("are 3 + the role's own tokens, as tiktoken counts them, for every role and encoding", () => {
    for (const enc of ENCODINGS)
      for (const role of ["system", "user", "assistant", "tool"]) expect([enc, role, messageOverhead(role, enc)]).toEqual([enc, role, TOKENS_PER_MESSAGE + countTextTokens(role, enc)]);
  });
});
