import type { Env } from "./roles";
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client";

// Signs session cookies. MEMSCOPE_AUTH_SECRET wins; otherwise one is generated on first
// start and kept in the database, so sessions survive restarts with nothing to configure.

export async function loadAuthSecret(prisma: PrismaClient, env: Env = process.env): Promise<string> {
  const given = env.MEMSCOPE_AUTH_SECRET?.trim();
  if (given) {
    if (given.length < 32) throw new Error("MEMSCOPE_AUTH_SECRET must be at least 32 characters (try: openssl rand -base64 32).");
    return given;
  }
  const fresh = randomBytes(32).toString("base64url");
  // Two servers starting at once on one database agree on whichever row landed first.
  // Prisma's upsert with an empty update reads, then inserts (not ON CONFLICT): the second of
  // two instances failed on the primary key. skipDuplicates is INSERT ... ON CONFLICT DO NOTHING.
  await prisma.authSetting.createMany({ data: [{ key: "session_secret", value: fresh }], skipDuplicates: true });
  const row = await prisma.authSetting.findUniqueOrThrow({ where: { key: "session_secret" } });
  return row.value;
}
