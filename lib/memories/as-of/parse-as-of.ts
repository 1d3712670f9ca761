import { BadRequestError } from "../../errors/domain-errors";
import { ZAsOf } from "../schemas";

/**
 * The `as_of` query parameter as an instant, or undefined when absent. A value that is no
 * ISO 8601 instant (with its offset) is a 400 naming the field.
 */
export function parseAsOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const r = ZAsOf.safeParse(raw);
  const t = r.success ? new Date(raw).getTime() : NaN;
  if (!Number.isFinite(t)) {
    throw new BadRequestError("invalid_as_of", "as_of must be an ISO 8601 instant with its offset, e.g. 2026-11-25T14:03:00Z", [
      { field: "as_of", message: "not an ISO 8601 instant" },
    ]);
  }
  return new Date(t).toISOString();
}
