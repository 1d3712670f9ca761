import { NextResponse, type NextRequest } from "next/server";
import { allowedMethods } from "./lib/api/route-table";
import type { ErrorCode } from "./lib/errors/error-codes";

// Runs before Next.js routes /api/v1 requests, so that input Next.js itself would fail on
// gets a JSON 4xx instead of a plain-text 500: malformed percent-encoding in the path,
// methods no route answers (405 with Allow), and paths no route has (404).

const error = (status: number, code: ErrorCode, message: string, field: string, headers: Record<string, string> = {}) =>
  NextResponse.json({ error: { code, message, details: [{ field, message }] } }, { status, headers });

export function proxy(req: NextRequest) {
  const raw = rawPath(req.url);
  try {
    for (const seg of raw.split("/")) decodeURIComponent(seg);
  } catch {
    return error(400, "invalid_path", "The path has malformed percent-encoding", "path");
  }
  const allowed = allowedMethods(req.nextUrl.pathname);
  if (!allowed) return error(404, "not_found", `No API route ${req.nextUrl.pathname}`, "path");
  if (!allowed.includes(req.method)) {
    return error(405, "method_not_allowed", `${req.method} is not allowed here; use ${allowed.join(", ")}`, "method", {
      allow: allowed.join(", "),
    });
  }
  return NextResponse.next();
}

/** The path as sent, before any decoding. */
function rawPath(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const end = url.search(/[?#]/);
  return url.slice(start, end === -1 ? undefined : end);
}

// Uploads are left out: the proxy would buffer their body (a file of hundreds of MB) in memory.
export const config = { matcher: ["/api/v1", "/api/v1/((?!imports/upload$|evals/sets/[^/]+/import/upload$).*)"] };
