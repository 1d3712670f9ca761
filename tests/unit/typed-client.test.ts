import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderClientTypes } from "@/lib/api/client-types";
import { buildOpenApi } from "@/lib/api/openapi";

// The typed client in sdk/typescript is generated from the OpenAPI document; when a route's
// contract changes and nobody regenerates it, this fails (run `npm run generate:client`).

const SDK = path.resolve(__dirname, "../../sdk/typescript");

describe("typed client", () => {
  it("its committed types are what the current OpenAPI document generates", async () => {
    const committed = fs.readFileSync(path.join(SDK, "src/openapi.ts"), "utf8");
    expect(committed === (await renderClientTypes()), "sdk/typescript/src/openapi.ts is stale: run `npm run generate:client`").toBe(true);
  });

  it("its committed openapi.json is the current document", () => {
    const committed = JSON.parse(fs.readFileSync(path.join(SDK, "openapi.json"), "utf8"));
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApi())));
  });
});
