// What a failed call throws, and the helpers that read it for error states and forms.
import type { Memory } from "./api-types";

export type ApiErrorDetail = { field?: string; message: string };

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details: ApiErrorDetail[] = [],
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** The field the first detail names (a form shows the message beside it). */
  get field(): string | undefined {
    return this.details[0]?.field;
  }
}

/**
 * The details worth appending to an error message: not those it already says
 * ("Invalid query: leaf: Invalid UUID" + "leaf: Invalid UUID"), nor a bare "unknown id" next to "… does not exist".
 */
export function detailSuffix(message: string, details: ApiErrorDetail[]): string {
  const extra = details
    .map((d) => (d.field ? `${d.field}: ${d.message}` : d.message))
    .filter((t, i) => !message.includes(t) && !message.includes(details[i].message) && details[i].message !== "unknown id");
  const unique = [...new Set(extra)];
  return unique.length ? ` (${unique.join("; ")})` : "";
}

/** A client error (4xx) will not change on retry: no "Try again" for it. */
export function isClientError(e: unknown): boolean {
  return e instanceof ApiError && e.status >= 400 && e.status < 500;
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The API's 422 details as field → message. */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const out: Record<string, string> = {};
  for (const d of error.details) if (d.field && !(d.field in out)) out[d.field] = d.message;
  return out;
}

/** The current version carried by a 409 version_conflict answer (a memory edited elsewhere). */
export function conflictCurrent(e: unknown): Memory | null {
  if (!(e instanceof ApiError) || e.status !== 409) return null;
  const d = (e.details as (ApiErrorDetail & { current?: Memory })[]).find((x) => x.current);
  return d?.current ?? null;
}
