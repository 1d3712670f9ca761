#!/usr/bin/env node
// npx memscope-mcp --url http://localhost:3000 --key <api key>
// An MCP server over stdio that proxies to a running Memscope (lib/mcp/run-stdio.ts).
import { register } from "tsx/esm/api";

register();
const { runStdio } = await import("../lib/mcp/run-stdio.ts");
try {
  await runStdio(process.argv.slice(2));
} catch (e) {
  console.error(`memscope-mcp: ${e instanceof Error ? e.message : e}`);
  process.exit(2);
}
