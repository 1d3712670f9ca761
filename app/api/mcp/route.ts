import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { resolveAccess } from "@/lib/api/access";
import { domainErrorResponse, errorBody } from "@/lib/api/error-table";
import { DomainError } from "@/lib/errors/domain-errors";
import { createMemscopeMcpServer } from "@/lib/mcp/create-mcp-server";
import { createMemscope } from "@/sdk/typescript/src/index";

export const dynamic = "force-dynamic";

// MCP over Streamable HTTP, stateless: a server and a transport per request. Tools call the
// HTTP API with the caller's own Authorization header, so each call is authorized, scoped
// and recorded exactly like the same call made directly.

function apiBase(req: Request): string {
  return process.env.MEMSCOPE_INTERNAL_URL || new URL(req.url).origin;
}

export async function POST(req: Request): Promise<Response> {
  try {
    await resolveAccess(req);
  } catch (e) {
    if (e instanceof DomainError) return domainErrorResponse(e);
    throw e;
  }
  const authorization = req.headers.get("authorization");
  const api = createMemscope({
    baseUrl: apiBase(req),
    fetch: (input, init) => {
      const r = new Request(input, init);
      if (authorization) r.headers.set("authorization", authorization);
      return fetch(r);
    },
  });
  const server = createMemscopeMcpServer(api);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    // The answer is complete (JSON mode): nothing of this request's server outlives it.
    void server.close();
  }
}

const notAllowed = () =>
  Response.json(
    errorBody("method_not_allowed", "This MCP endpoint is stateless: POST JSON-RPC messages", [{ field: "method", message: "use POST" }]),
    { status: 405, headers: { allow: "POST" } },
  );

export const GET = notAllowed;
export const DELETE = notAllowed;
