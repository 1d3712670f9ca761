// Runs `prisma generate` offline. The Prisma CLI insists on a schema-engine binary
// path even for `generate`, which needs none; any existing file satisfies the check
// and nothing is downloaded.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const self = fileURLToPath(import.meta.url);
const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = self;
if (!existsSync("prisma/schema.prisma")) process.exit(0);
const r = spawnSync("npx", ["prisma", "generate"], { stdio: "inherit", env });
process.exit(r.status ?? 1);
