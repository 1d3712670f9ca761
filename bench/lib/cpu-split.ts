/** This process's CPU seconds (user + system). */
export const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

type Queryable = { query: (text: string, params?: unknown[]) => Promise<unknown> };

/**
 * Charges the CPU spent inside each statement of `target` (an embedded database runs it on this
 * thread) to `sql: <its first chars>`, and inside JSON.parse to "JSON.parse", through `add`.
 * Diagnostics only: it replaces `target.query` and the global JSON.parse for the process's life.
 */
export function chargeSqlAndJson(target: Queryable, add: (key: string, seconds: number) => void, width: number) {
  const query = target.query.bind(target);
  target.query = async (text: string, params?: unknown[]) => {
    const c0 = cpuSeconds();
    try {
      return await query(text, params);
    } finally {
      add(`sql: ${text.replace(/\s+/g, " ").trim().slice(0, width)}`, cpuSeconds() - c0);
    }
  };
  const parse = JSON.parse;
  JSON.parse = ((text: string, reviver?: never) => {
    const c0 = cpuSeconds();
    try {
      return parse(text, reviver);
    } finally {
      add("JSON.parse", cpuSeconds() - c0);
    }
  }) as typeof JSON.parse;
}
