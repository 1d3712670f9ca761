import { z } from "zod";

// The one rule for end-user ids (conversations.end_user_id, memories.user_id and every
// user_id that names the same person), at every entry point: API bodies, path parameters,
// imports and OTLP. An id must be addressable as one segment of /api/v1/users/{user_id}/...:
// URL normalisation removes the dot segments `.` and `..`, and a `/` or `\` splits the path,
// so a user stored under such an id could be neither exported nor erased. Client-safe.

export const MAX_USER_ID_LENGTH = 200;

/** Why `id` cannot be a user id, or null when it can. */
export function userIdProblem(id: string): string | null {
  if (id.length === 0) return "must not be empty";
  if (id.length > MAX_USER_ID_LENGTH) return `at most ${MAX_USER_ID_LENGTH} characters`;
  if (id.trim() !== id) return "must not start or end with white space";
  if (id === "." || id === "..") return `must not be "${id}" (a URL path cannot address it)`;
  if (/[/\\]/.test(id)) return "must not contain / or \\ (a URL path segment cannot hold it)";
  return null;
}

/** A user id in a request: white space around it is trimmed, then the rule applies. */
export const ZUserIdInput = z
  .string()
  .trim()
  .superRefine((id, ctx) => {
    const why = userIdProblem(id);
    if (why) ctx.addIssue({ code: "custom", message: why });
  })
  .describe(`An end user's id: 1 to ${MAX_USER_ID_LENGTH} characters, not "." or "..", without / or \\.`);
