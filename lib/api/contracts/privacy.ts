import { z } from "zod";
import { ZEraseTextAnswer, ZEraseTextBody, ZEraseUserAnswer, ZEraseUserBody, ZUserExport, ZUserImported } from "../../privacy/schemas";
import { contract, ZPathUserId } from "../contract";

// A person's data (GDPR articles 15, 17, 20): export, erasure with a receipt, import of an export.

const tag = "privacy";
const ZUserParams = z.object({ user_id: ZPathUserId });

export const exportUser = contract({
  tag, method: "GET", path: "/users/{user_id}/export", scope: "project:read",
  summary: "Everything about one end user as one JSON document (importable again with POST /user-imports)",
  params: ZUserParams, response: ZUserExport, errors: [404],
});

export const eraseUser = contract({
  tag, method: "POST", path: "/users/{user_id}/erase", scope: "project:admin",
  summary: "Erase an end user's data; dry_run first shows what would go, per table; the answer is the receipt (also in the audit log)",
  description:
    "Batches of one transaction each: interrupted, it leaves whole batches and refuses writes for the user until it is run again, which finishes. Writes for the user during the erasure fail with 409 erasure_in_progress.",
  params: ZUserParams, body: ZEraseUserBody, bodyOptional: true, bodyLimit: 16 * 1024, response: ZEraseUserAnswer, errors: [404, 422],
});

export const eraseText = contract({
  tag, method: "POST", path: "/erase/text", scope: "project:admin",
  summary: "Replace exact strings by [erased] in one user's rows or the whole project (dry_run lists the matches)",
  body: ZEraseTextBody, bodyLimit: 256 * 1024, response: ZEraseTextAnswer, errors: [404, 422],
});

export const importUser = contract({
  tag, method: "POST", path: "/user-imports", scope: "project:admin",
  summary: "Import a user export (GET /users/{user_id}/export) into this project: the same ids, times and history",
  body: ZUserExport, bodyLimit: 200 * 1024 * 1024, response: ZUserImported, status: 201, errors: [409, 422],
});

export const PRIVACY_CONTRACTS = [exportUser, eraseUser, eraseText, importUser];
