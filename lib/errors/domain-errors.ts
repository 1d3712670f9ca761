// Typed errors that domain code throws. They know nothing of HTTP: lib/api/error-table.ts
// maps each kind to a status, in one place.

import type { CodeOf, ErrorCode, ErrorKind } from "./error-codes";

export type ErrorDetail = { field?: string; message: string; [k: string]: unknown };

export type { ErrorCode, ErrorKind };

/** (kind, code, message, details?) where the code is one of that kind's (error-codes.ts). */
type DomainErrorArgs = { [K in ErrorKind]: [kind: K, code: CodeOf<K>, message: string, details?: ErrorDetail[]] }[ErrorKind];

export class DomainError extends Error {
  readonly kind: ErrorKind;
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  constructor(...[kind, code, message, details = []]: DomainErrorArgs) {
    super(message);
    this.name = "DomainError";
    this.kind = kind;
    this.code = code;
    this.details = details;
  }
}

/** A thing that does not exist (or that the caller's project cannot see). */
export class NotFoundError extends DomainError {
  constructor(what: string, id: string, field = "id") {
    super("not_found", "not_found", `${what} ${id} does not exist`, [{ field, message: "unknown id", id }]);
  }
}

/** The request is well-formed but clashes with the current state (versions, duplicates, limits). */
export class ConflictError extends DomainError {
  constructor(message: string, details: ErrorDetail[] = [], code: CodeOf<"conflict"> = "conflict") {
    super("conflict", code, message, details);
  }
}

/** The request is well-formed JSON but its meaning is wrong (a field refers to nothing, a rule is broken). */
export class ValidationError extends DomainError {
  constructor(message: string, details: ErrorDetail[] = [], code: CodeOf<"validation"> = "validation_error") {
    super("validation", code, message, details);
  }
}

/** Input the server cannot hold or read at all (bad JSON, NUL bytes, forged cursors). */
export class BadRequestError extends DomainError {
  constructor(code: CodeOf<"bad_request">, message: string, details: ErrorDetail[] = []) {
    super("bad_request", code, message, details);
  }
}

export class TooLargeError extends DomainError {
  constructor(maxBytes: number, field = "body") {
    super("too_large", "payload_too_large", `The request body is over ${formatBytes(maxBytes)}`, [
      { field, message: `limit ${maxBytes} bytes` },
    ]);
  }
}

/** The server is set up in a way that cannot do what was asked (missing or wrong env). */
export class ConfigurationError extends DomainError {
  constructor(code: CodeOf<"configuration">, message: string, details: ErrorDetail[] = []) {
    super("configuration", code, message, details);
  }
}

/** An embedding or chat endpoint failed: the fault is upstream, not in the request. */
export class ProviderError extends DomainError {
  constructor(message: string) {
    super("provider", "provider_error", message);
    this.name = "ProviderError";
  }
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round(n / 1024 / 1024)} MiB`;
  return `${Math.round(n / 1024)} KiB`;
}

/** A key or account that is missing or wrong. */
export class UnauthorizedError extends DomainError {
  constructor(message: string) {
    super("unauthorized", "unauthorized", message);
  }
}

/** Known caller, not allowed: a missing scope, a viewer writing, a cross-site cookie request. */
export class ForbiddenError extends DomainError {
  constructor(message: string, details: ErrorDetail[] = [], code: CodeOf<"forbidden"> = "forbidden") {
    super("forbidden", code, message, details);
  }
}

export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super("rate_limited", "rate_limited", message, [{ message: `retry after ${retryAfterSeconds} s` }]);
  }
}

export class UnavailableError extends DomainError {
  constructor(code: CodeOf<"unavailable">, message: string) {
    super("unavailable", code, message);
  }
}

/**
 * The database kept rolling the work back for contention (a deadlock or a serialization
 * failure) through every attempt of the retry rule (lib/db/retry-contention.ts): the request
 * was fine and nothing of it was written, so the client may simply send it again.
 */
export class ContentionError extends UnavailableError {
  readonly retryAfterSeconds = 1;
  constructor(attempts: number, cause: unknown) {
    super("database_busy", `The database kept refusing this work for contention with concurrent requests (tried ${attempts} time${attempts === 1 ? "" : "s"}): nothing was written, retry shortly`);
    this.cause = cause;
  }
}

export const notFound = (what: string, id: string, field = "id") => new NotFoundError(what, id, field);
export const unprocessable = (message: string, details: ErrorDetail[] = []) => new ValidationError(message, details, "unprocessable");
export const conflict = (message: string, details: ErrorDetail[] = []) => new ConflictError(message, details);
