// Serves the production build. The database opens, migrates and seeds (when empty)
// inside the server on start (instrumentation.ts), so this only starts Next.js.
//
// A small HTTP server in front of Next.js answers what Next.js itself fails on with a
// plain-text 500: methods it cannot turn into a web Request (TRACE, TRACK, CONNECT) get a
// JSON 405, a path with malformed percent-encoding (on any page, not only the API) a 400, and
// what Node's own parser refuses (headers over 16 KiB: 431) the same JSON error shape.
// It also tells the app who the client is (x-memscope-client-address: the socket's peer, or
// what a proxy listed in MEMSCOPE_TRUSTED_PROXIES forwards), which the rate limits key on.
import { existsSync } from "node:fs";
import http from "node:http";
import next from "next";
import { CLIENT_ADDRESS_HEADER, clientAddress, parseTrustedProxies } from "./client-address.mjs";

const distDir = process.env.MEMSCOPE_NEXT_DIST_DIR || ".next";
if (!existsSync(`${distDir}/BUILD_ID`)) {
  console.error("No production build found: run `npm start` (builds first) or `npm run build`.");
  process.exit(1);
}
process.env.NODE_ENV = "production";
process.env.NEXT_TELEMETRY_DISABLED ??= "1";

const port = Number(process.env.PORT || 3000);
// This machine only unless HOST says otherwise; before the first account exists the
// server refuses a non-local HOST (lib/auth/start-rules.ts).
const hostname = process.env.HOST || "127.0.0.1";
const UNSUPPORTED = new Set(["TRACE", "TRACK", "CONNECT"]);
let trustedProxies;
try {
  trustedProxies = parseTrustedProxies(process.env.MEMSCOPE_TRUSTED_PROXIES);
} catch (e) {
  console.error(`[memscope] refusing to start: ${e.message}`);
  process.exit(1);
}

// Where in-process callers (the MCP endpoint's tools) reach this server's own API.
const loopback = !hostname || ["0.0.0.0", "::", "localhost", "127.0.0.1"].includes(hostname);
process.env.MEMSCOPE_INTERNAL_URL ??= `http://${loopback ? "127.0.0.1" : hostname}:${port}`;

// Listen only once instrumentation.ts has opened the database and applied the start rules (or
// given up on the database: then /ready answers 503). A data folder another live process holds,
// or a start the rules refuse, ends this process before it listens.
const started = new Promise((resolve) => {
  globalThis.__memscopeStarted = resolve;
});
const app = next({ dev: false, dir: process.cwd(), port, hostname: hostname ?? "localhost" });
const handle = app.getRequestHandler();
await app.prepare();
await started;

function refuse(res, status, code, message, field, headers = {}) {
  const body = JSON.stringify({ error: { code, message, details: [{ field, message }] } });
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body);
}

function pathDecodes(url) {
  const path = (url ?? "/").split(/[?#]/, 1)[0];
  try {
    for (const seg of path.split("/")) decodeURIComponent(seg);
    return true;
  } catch {
    return false;
  }
}

const server = http.createServer((req, res) => {
  if (UNSUPPORTED.has(req.method ?? "")) {
    refuse(res, 405, "method_not_allowed", `${req.method} is not supported`, "method", { allow: "GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE" });
    return;
  }
  if (!pathDecodes(req.url)) {
    refuse(res, 400, "invalid_path", "The path has malformed percent-encoding", "path");
    return;
  }
  // The app reads the client's address from this header only: drop whatever the client put
  // there, then name the socket's peer (or the client a trusted proxy names, client-address.mjs).
  req.headers[CLIENT_ADDRESS_HEADER] = clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], trustedProxies);
  handle(req, res);
});
// Node's parser refuses some requests before any handler runs (a request line and headers
// over its 16 KiB limit, a request it cannot parse) and answers them with an empty body; they
// get the API's error shape too. The socket is closed after: the request was never read whole.
server.on("clientError", (err, socket) => {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === "HPE_HEADER_OVERFLOW";
  const status = tooLarge ? 431 : 400;
  const message = tooLarge ? "The request line and headers are over 16 KiB" : "The request could not be parsed as HTTP";
  const body = JSON.stringify({ error: { code: tooLarge ? "headers_too_large" : "bad_request", message, details: [{ field: tooLarge ? "headers" : "request", message }] } });
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
});
// Idle keep-alive connections stay open 65 s, not Node's 5 s. Clients pool connections
// (fetch's undici, proxies, load balancers with a 60 s idle timeout) and send on one they think
// open; a server closing it at 5 s races that send, and after any event-loop stall the close wins:
// the client gets ECONNRESET for a request never read. Headers must time out after the idle close.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.listen(port, hostname, () => {
  console.log(`[memscope] listening on http://${hostname ?? "localhost"}:${port}`);
});
// Background work (a retention run, lib/retention/scheduler.ts) stops at its next batch
// boundary: the hooks lib/process/shutdown.ts collects, awaited for at most 10 s.
const SHUTDOWN_HOOKS = Symbol.for("memscope.shutdown");
let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    const hooks = globalThis[SHUTDOWN_HOOKS] ?? [];
    const timeout = new Promise((r) => setTimeout(r, 10_000).unref());
    await Promise.race([Promise.allSettled(hooks.map((h) => h())), timeout]);
    process.exit(0);
  });
}
