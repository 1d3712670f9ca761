import nodeConsole from "node:console";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderHook } from "@testing-library/react";
import { createElement, type ReactNode } from "react";
import { startAppServer, type AppServer } from "../helpers/app-server";

// Hooks under test call the real server: the document's address is set to the test server's,
// so the client's relative /api/v1 resolves there as it does against the page's origin in a
// browser. Each render gets its own QueryClient (no answer leaks between tests).

type HappyWindow = { happyDOM: { setURL(url: string): void } };

/**
 * The real server, started from a happy-dom test: happy-dom's fetch prints every refused
 * connection of the readiness poll, which is noise until the server listens (a start that fails
 * still throws with the server's log).
 */
export async function startServerForHooks(): Promise<AppServer> {
  // happy-dom was handed Node's own console (node:console), not the test's.
  const consoles = [console, nodeConsole];
  const saved = consoles.map((c) => c.error);
  for (const c of consoles) c.error = () => {};
  try {
    return await startAppServer();
  } finally {
    consoles.forEach((c, i) => (c.error = saved[i]));
  }
}

/** Points the document (and so every relative fetch) at `serverUrl`. */
export function browseTo(serverUrl: string, path = "/") {
  (window as unknown as HappyWindow).happyDOM.setURL(new URL(path, serverUrl).href);
}

export function renderWithClient<T>(hook: () => T) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => createElement(QueryClientProvider, { client }, children);
  return { client, ...renderHook(hook, { wrapper }) };
}
