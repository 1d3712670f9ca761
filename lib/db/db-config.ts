import path from "node:path";

export type DbConfig =
  | { kind: "pglite"; dataDir: string }
  | { kind: "postgres"; url: string };

/** DATABASE_URL=postgres(ql)://... selects a server; otherwise PGlite in MEMSCOPE_DATA_DIR. */
export function readDbConfig(env: NodeJS.ProcessEnv = process.env): DbConfig {
  const url = env.DATABASE_URL?.trim();
  if (url) {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new Error(`DATABASE_URL must start with postgresql:// (got "${url.split(":")[0]}:")`);
    }
    return { kind: "postgres", url };
  }
  const dir = env.MEMSCOPE_DATA_DIR?.trim() || ".data";
  return { kind: "pglite", dataDir: path.resolve(/*turbopackIgnore: true*/ dir) };
}
