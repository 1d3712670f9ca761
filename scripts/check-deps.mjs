// npm run check:deps: the import rules of .dependency-cruiser.cjs (docs/architecture.md, "Layers")
// over the app's code. Prints each violation; exits non-zero on one. npm test runs it too.
import { spawnSync } from "node:child_process";
import path from "node:path";

// The package exports no bin path, so the file is named from node_modules.
const bin = path.resolve("node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
const paths = ["lib", "app", "components", "client", "instrumentation.ts", "instrumentation-node.ts", "proxy.ts"];
const r = spawnSync(process.execPath, [bin, "--config", ".dependency-cruiser.cjs", "--output-type", "err", ...paths], { stdio: "inherit" });
process.exit(r.status ?? 1);
