import { describe, expect, it } from "vitest";
import { DomainError } from "@/lib/errors/domain-errors";
import { readBodyLimited } from "@/lib/http/read-body";

/** A POST whose body stream yields `chunks`, then fails (as Node's request stream does when the client goes away). */
function brokenRequest(chunks: string[]): Request {
  const enc = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) c.enqueue(enc.encode(chunks[i++]));
      else c.error(new Error("aborted"));
    },
  });
  return new Request("http://localhost/api/v1/replay", { method: "POST", body, duplex: "half" } as RequestInit);
}

describe("readBodyLimited", () => {
  it("reads a whole body", async () => {
    const req = new Request("http://localhost/x", { method: "POST", body: '{"a":1}' });
    expect((await readBodyLimited(req, 100)).toString("utf8")).toBe('{"a":1}');
  });

  it("answers a body that breaks off (the client went away) as a 400 body_incomplete naming the body, not as an internal error", async () => {
    const err = await readBodyLimited(brokenRequest(['{"message_id":']), 1000).catch((e) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: "bad_request", code: "body_incomplete", details: [{ field: "body", message: "incomplete" }] });
  });

  it("still answers 413 for a body over the limit before it breaks off", async () => {
    const err = await readBodyLimited(brokenRequest(["x".repeat(60), "y".repeat(60)]), 100).catch((e) => e);
    expect(err).toMatchObject({ kind: "too_large", code: "payload_too_large" });
  });
});
