import "server-only";
import { timingSafeEqual } from "node:crypto";
import { UnauthorizedError } from "../errors/domain-errors";
import type { Grant } from "./contract";

// Who is calling and what they may do. Today: the bootstrap key MEMSCOPE_API_KEY (all
// grants) when it is set, else an open single-user server on localhost.

export type Actor = { kind: "key" | "account" | "bootstrap" | "open"; label: string };
export type Access = { grants: ReadonlySet<Grant>; actor: Actor };

const ALL: ReadonlySet<Grant> = new Set(["read", "write", "admin"]);

export async function resolveAccess(req: Request): Promise<Access> {
  const key = process.env.MEMSCOPE_API_KEY;
  if (!key) return { grants: ALL, actor: { kind: "open", label: "local" } };
  const header = req.headers.get("authorization") ?? "";
  const given = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new UnauthorizedError("Missing or wrong API key (Authorization: Bearer <key>)");
  }
  return { grants: ALL, actor: { kind: "bootstrap", label: "MEMSCOPE_API_KEY" } };
}
