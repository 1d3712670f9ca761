import { z } from "zod";
import { ContentionError, DomainError, RateLimitedError, type ErrorDetail, type ErrorKind } from "../errors/domain-errors";
import { ERROR_CODE_LIST, ERROR_CODES, type ErrorCode } from "../errors/error-codes";

// The one table from a typed error to an HTTP status. Anything else is a fault of ours: 500.

export const STATUS_OF: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media_type: 415,
  validation: 422,
  rate_limited: 429,
  provider: 502,
  unavailable: 503,
  // The server is set up so that it cannot do this; the request was fine: a state conflict.
  configuration: 409,
  method_not_allowed: 405,
  internal: 500,
};

/** The status an error code is always answered with (its kind's). */
export const statusOfCode = (code: ErrorCode): number => STATUS_OF[ERROR_CODES[code].kind];

export const ZErrorBody = z.object({
  error: z.object({
    code: z.enum(ERROR_CODE_LIST).describe("One of the API's error codes: the table on /docs/api lists each with its status and meaning."),
    message: z.string(),
    details: z.array(z.object({ field: z.string().optional(), message: z.string() }).loose()),
  }),
});

export function errorBody(code: ErrorCode, message: string, details: ErrorDetail[] = []) {
  return { error: { code, message, details } };
}

export function domainErrorResponse(e: DomainError): Response {
  const headers: Record<string, string> = {};
  if (e instanceof RateLimitedError || e instanceof ContentionError) headers["retry-after"] = String(e.retryAfterSeconds);
  return Response.json(errorBody(e.code, e.message, e.details), { status: STATUS_OF[e.kind], headers });
}

/** A zod failure as a 422 naming each field (`messages[50].parent_message_id`). */
export function zodFailure(e: z.ZodError, where: "body" | "query" | "path"): DomainError {
  const details = e.issues.map((i) => ({
    field: i.path.length ? i.path.map(String).join(".").replace(/\.(\d+)(?=\.|$)/g, "[$1]") : where,
    message: i.message,
    code: i.code,
  }));
  const first = details[0];
  return new DomainError("validation", "validation_error", `Invalid ${where}: ${first.field}: ${first.message}`, details);
}
