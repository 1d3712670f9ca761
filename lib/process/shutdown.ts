// Work to finish before the process exits on SIGTERM/SIGINT: scripts/serve.mjs awaits every
// hook (for a bounded time) before it exits. The list lives on globalThis: Next.js evaluates
// modules once per bundle, and serve.mjs is outside the bundles.

const KEY = Symbol.for("memscope.shutdown");
type Holder = { [KEY]?: (() => Promise<void>)[] };

export function onShutdown(hook: () => Promise<void>): void {
  const g = globalThis as Holder;
  (g[KEY] ??= []).push(hook);
}
