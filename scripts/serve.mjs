// Serves the production build. The database opens, migrates and seeds (when empty)
// inside the server on start (instrumentation.ts), so this only starts Next.js.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

if (!existsSync(`${process.env.MEMSCOPE_NEXT_DIST_DIR || ".next"}/BUILD_ID`)) {
  console.error("No production build found: run `npm start` (builds first) or `npm run build`.");
  process.exit(1);
}
const require = createRequire(import.meta.url);
const nextBin = require.resolve("next/dist/bin/next");
const port = process.env.PORT || "3000";
const child = spawn(process.execPath, [nextBin, "start", "-p", port], {
  stdio: "inherit",
  env: { NEXT_TELEMETRY_DISABLED: "1", ...process.env, NODE_ENV: "production" },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
