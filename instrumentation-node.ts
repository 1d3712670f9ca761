import { startServer } from "./lib/server/start";

// The server's start (instrumentation.ts imports this on the Node.js runtime only); what it does
// is lib/server/start.ts.
export async function startNodeServer() {
  // scripts/serve.mjs listens only once this is done (the hook is not set under `next dev`).
  try {
    await startServer();
  } finally {
    (globalThis as { __memscopeStarted?: () => void }).__memscopeStarted?.();
  }
}
