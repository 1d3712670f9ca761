import http from "node:http";
import type { AddressInfo } from "node:net";

// A local stand-in for an OpenAI-compatible server: POST /v1/embeddings and
// POST /v1/chat/completions, each answered by a function the test provides.
//
//   const stub = await startOpenAiStub({ chat: (body) => ({ memories: [] }) });
//   env: MEMSCOPE_CHAT_BASE_URL=stub.url, MEMSCOPE_CHAT_MODEL=stub-chat
//
// chat(body) returns the assistant message: a string as is, anything else as JSON.
// embed(input) returns one vector per input; the default is a deterministic hashed
// bag of words with the request's `dimensions` (8 when absent). A handler that throws
// answers 500 with the error message, which is how a test simulates a failing
// provider. Every request is kept in `requests` (path and parsed body).

export type StubRequest = { path: string; body: any };
export type ChatHandler = (body: any) => unknown | Promise<unknown>;
export type EmbedHandler = (input: string[], body: any) => number[][] | Promise<number[][]>;

export type OpenAiStub = {
  url: string;
  requests: StubRequest[];
  /** Replace a handler between requests (e.g. a different answer per test). */
  set(handlers: { chat?: ChatHandler; embed?: EmbedHandler }): void;
  stop(): Promise<void>;
};

export function hashedVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)) {
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
    v[(h >>> 0) % dimensions] += 1;
  }
  const norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

export async function startOpenAiStub(opts: { chat?: ChatHandler; embed?: EmbedHandler } = {}): Promise<OpenAiStub> {
  let chat: ChatHandler | undefined = opts.chat;
  let embed: EmbedHandler | undefined = opts.embed;
  const requests: StubRequest[] = [];

  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      // No keep-alive: a caller's next request after an idle gap could go out on a socket the
      // stub is closing for idleness ("fetch failed"), which a loaded machine's slow tests hit.
      res.writeHead(status, { "content-type": "application/json", connection: "close" });
      res.end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text ? JSON.parse(text) : null;
      const path = (req.url ?? "").split("?")[0];
      requests.push({ path, body });
      if (req.method === "POST" && path === "/v1/chat/completions") {
        if (!chat) return send(404, { error: { message: "no chat handler in this stub" } });
        const answer = await chat(body);
        const content = typeof answer === "string" ? answer : JSON.stringify(answer);
        return send(200, {
          id: `chatcmpl-stub-${requests.length}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body?.model ?? "stub-chat",
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        });
      }
      if (req.method === "POST" && path === "/v1/embeddings") {
        const input: string[] = Array.isArray(body?.input) ? body.input : [String(body?.input ?? "")];
        const dims = Number(body?.dimensions) || 8;
        const vectors = embed ? await embed(input, body) : input.map((t) => hashedVector(t, dims));
        return send(200, {
          object: "list",
          model: body?.model ?? "stub-embed",
          data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      }
      send(404, { error: { message: `no route ${req.method} ${path}` } });
    } catch (e) {
      send(500, { error: { message: (e as Error).message } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    set(handlers) {
      if ("chat" in handlers) chat = handlers.chat;
      if ("embed" in handlers) embed = handlers.embed;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
