// npm run generate:client — writes the typed client's types (sdk/typescript/src/openapi.ts)
// and the OpenAPI document beside it, from the route contracts.
import fs from "node:fs";
import path from "node:path";
import { renderClientTypes } from "../lib/api/client-types";
import { buildOpenApi } from "../lib/api/openapi";

const dir = path.resolve(import.meta.dirname, "../sdk/typescript");
fs.writeFileSync(path.join(dir, "src/openapi.ts"), await renderClientTypes());
fs.writeFileSync(path.join(dir, "openapi.json"), JSON.stringify(buildOpenApi(), null, 2) + "\n");
console.log(`wrote ${path.relative(process.cwd(), dir)}/src/openapi.ts and openapi.json`);
