import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMemscope } from "../../sdk/typescript/src/index";
import { createMemscopeMcpServer } from "./create-mcp-server";

// The stdio MCP server for desktop agents: the same tools, calling a running Memscope.

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): { url: string; key?: string } {
  let url = env.MEMSCOPE_URL || "http://localhost:3000";
  let key = env.MEMSCOPE_API_KEY || undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (!v) throw new Error(`${a.split("=")[0]} needs a value`);
      return v;
    };
    if (a === "--url" || a.startsWith("--url=")) url = value();
    else if (a === "--key" || a.startsWith("--key=")) key = value();
    else if (a === "--help" || a === "-h") throw new Error("usage: memscope-mcp [--url http://localhost:3000] [--key <api key>]  (or MEMSCOPE_URL, MEMSCOPE_API_KEY)");
    else throw new Error(`unknown argument ${a}`);
  }
  return { url, key };
}

export async function runStdio(argv: string[]): Promise<void> {
  const { url, key } = parseArgs(argv);
  const server = createMemscopeMcpServer(createMemscope({ baseUrl: url, apiKey: key }));
  await server.connect(new StdioServerTransport());
  // stdout is the protocol; say where we point on stderr only.
  console.error(`[memscope-mcp] serving over stdio, calling ${url}${key ? " with a key" : ""}`);
}
