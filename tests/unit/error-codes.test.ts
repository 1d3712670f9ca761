import { describe, expect, it } from "vitest";
import { domainErrorResponse, statusOfCode, STATUS_OF, ZErrorBody } from "@/lib/api/error-table";
import { buildOpenApi } from "@/lib/api/openapi";
import { DomainError } from "@/lib/errors/domain-errors";
import { ERROR_CODE_LIST, ERROR_CODES, type ErrorCode } from "@/lib/errors/error-codes";

// Error codes are one closed set (issue 21, part 3): the table in lib/errors/error-codes.ts.

describe("error codes", () => {
  it("are snake_case, each with a meaning and a 4xx or 5xx status from its kind", () => {
    expect(ERROR_CODE_LIST.length).toBeGreaterThan(20);
    for (const code of ERROR_CODE_LIST) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(ERROR_CODES[code].meaning.length, code).toBeGreaterThan(10);
      expect(statusOfCode(code)).toBe(STATUS_OF[ERROR_CODES[code].kind]);
      expect(statusOfCode(code) >= 400 && statusOfCode(code) <= 599, code).toBe(true);
    }
    expect(statusOfCode("not_found")).toBe(404);
    expect(statusOfCode("version_conflict")).toBe(409);
    expect(statusOfCode("validation_error")).toBe(422);
    expect(statusOfCode("rate_limited")).toBe(429);
    expect(statusOfCode("internal")).toBe(500);
  });

  it("a typed error of each code is answered with that code's status and a body the contract accepts", async () => {
    for (const code of ERROR_CODE_LIST) {
      const kind = ERROR_CODES[code].kind;
      const res = domainErrorResponse(new (DomainError as unknown as new (k: string, c: ErrorCode, m: string) => DomainError)(kind, code, "m"));
      expect(res.status, code).toBe(statusOfCode(code));
      const body = ZErrorBody.parse(await res.json());
      expect(body.error.code).toBe(code);
    }
  });

  it("the error body refuses a code outside the set", () => {
    expect(ZErrorBody.safeParse({ error: { code: "validation_error", message: "m", details: [] } }).success).toBe(true);
    expect(ZErrorBody.safeParse({ error: { code: "made_up", message: "m", details: [] } }).success).toBe(false);
  });

  it("the OpenAPI document lists exactly these codes in its error schema", () => {
    const doc = buildOpenApi() as unknown as { components: { schemas: { Error: { properties: { error: { properties: { code: { enum: string[] } } } } } } } };
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual(ERROR_CODE_LIST);
  });
});
