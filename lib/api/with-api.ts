import "server-only";
import { z } from "zod";
import { ContentionExhausted, isContention } from "../db/retry-contention";
import { BadRequestError, ConflictError, ContentionError, DomainError, ForbiddenError, NotFoundError, TooLargeError } from "../errors/domain-errors";
import { readBodyLimited } from "../http/read-body";
import { resolveAccess, type Access } from "./access";
import { grantOf, idParamLabel, type ApiContract } from "./contract";
import { domainErrorResponse, errorBody, zodFailure } from "./error-table";
import { checkJsonValue, checkText } from "../http/input-guard";
import { logStatus, type Phase } from "./status-log";

// The one wrapper every route of Memscope's own goes through (/api/v1, and the browser's
// session routes under /api/auth, whose contracts are public: their handlers decide from the
// session, the Origin and the bootstrap key). It takes the route's contract and does,
// in order: access (scope), path params, query, body (JSON only, size limit, input guard,
// schema), the handler, then the response (checked against its schema in tests and dev).

export const MAX_BODY_BYTES = 25 * 1024 * 1024;

type Infer<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;

export type HandlerInput<C extends ApiContract> = {
  req: Request;
  url: URL;
  access: Access;
  params: Infer<C["params"]>;
  query: Infer<C["query"]>;
  body: C["body"] extends z.ZodType ? z.output<C["body"]> : undefined;
};

/** A success with a status other than the contract's default (one of `alsoStatus`), or with headers (a session's Set-Cookie). */
export class Reply {
  constructor(
    readonly data: unknown,
    readonly status: number,
    readonly headers?: Headers,
  ) {}
}
export const reply = (data: unknown, status: number, headers?: Headers) => new Reply(data, status, headers);

type NextCtx = { params?: Promise<Record<string, string>> };
export type RouteHandler = ((req: Request, ctx: NextCtx) => Promise<Response>) & { contract: ApiContract };

const CHECK_RESPONSES = process.env.MEMSCOPE_CHECK_RESPONSES === "1" || process.env.NODE_ENV === "development";

export function withApi<const C extends ApiContract>(
  contract: C,
  handler: (input: HandlerInput<C>) => Promise<unknown>,
): RouteHandler {
  const run = async (req: Request, ctx: NextCtx): Promise<Response> => {
    // Which step answered: tests record it (MEMSCOPE_STATUS_LOG) to check every declared status is seen.
    let phase: Phase = "access";
    const answer = (res: Response) => (logStatus(contract, res.status, phase), res);
    try {
      const access = await authorize(req, contract);
      phase = "input";
      const url = new URL(req.url);
      const params = parseParams(contract, ctx?.params ? await ctx.params : {});
      const query = parseQuery(contract, url);
      const body = contract.body ? await parseJsonBody(req, contract) : undefined;
      phase = "handler";
      const out = await handler({ req, url, access, params, query, body } as HandlerInput<C>);
      return answer(respond(contract, req, out));
    } catch (e) {
      if (e instanceof DomainError) return answer(domainErrorResponse(e));
      if (isErasureGuard(e)) return answer(domainErrorResponse(erasureInProgress()));
      // Contention the SQL runner retried until it gave up (ContentionExhausted), or that did not come through its retry rule (a Prisma
      // transaction): the same 503 with Retry-After that the rule gives when it runs out.
      if (isContention(e)) return answer(domainErrorResponse(new ContentionError(e instanceof ContentionExhausted ? e.attempts : 1, e)));
      console.error(`[api] ${req.method} ${contract.path}`, e);
      return answer(Response.json(errorBody("internal", "Internal error"), { status: 500 }));
    }
  };
  return Object.assign(run, { contract });
}

/** The database refused a write for a user being erased (migration 20261126010000_privacy). */
function isErasureGuard(e: unknown, depth = 0): boolean {
  if (!e || typeof e !== "object" || depth > 4) return false;
  const x = e as { code?: unknown; message?: unknown; cause?: unknown };
  if (x.code === "MSE01" || (typeof x.message === "string" && x.message.includes("memscope: this user is being erased"))) return true;
  return isErasureGuard(x.cause, depth + 1);
}

const erasureInProgress = () =>
  new ConflictError("This end user's data is being erased; writes for the user are refused until the erasure ends", [{ field: "user_id", message: "being erased" }], "erasure_in_progress");

async function authorize(req: Request, contract: ApiContract): Promise<Access> {
  const need = grantOf(contract.scope);
  if (!need) return { projectId: "default", grants: new Set(), actor: { kind: "open", label: "public" } };
  const access = await resolveAccess(req);
  if (!access.grants.has(need)) {
    // Named as the docs name scopes (read, write, admin), not by the contract's internal label.
    const has = [...access.grants].join(", ") || "none";
    throw new ForbiddenError(`This needs the ${need} scope; this key or role has: ${has}`, [{ field: "scope", message: `needs ${need}` }], "missing_scope");
  }
  return access;
}

function parseParams(contract: ApiContract, raw: Record<string, string>) {
  if (!contract.params) return {};
  for (const [k, v] of Object.entries(raw)) checkText(v, k);
  const shape = contract.params.shape as Record<string, z.ZodType>;
  for (const [k, s] of Object.entries(shape)) {
    const what = idParamLabel(s);
    if (what && !z.uuid().safeParse(raw[k]).success) throw new NotFoundError(what, String(raw[k]), k);
  }
  const r = contract.params.safeParse(raw);
  if (!r.success) throw zodFailure(r.error, "path");
  return r.data;
}

function parseQuery(contract: ApiContract, url: URL) {
  const raw: Record<string, string> = {};
  for (const [k, v] of url.searchParams) {
    checkText(k, "query parameter name");
    checkText(v, k);
    raw[k] = v;
  }
  if (!contract.query) return {};
  const r = contract.query.safeParse(raw);
  if (!r.success) throw zodFailure(r.error, "query");
  return r.data;
}

async function parseJsonBody(req: Request, contract: ApiContract): Promise<unknown> {
  const limit = contract.bodyLimit ?? MAX_BODY_BYTES;
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw new TooLargeError(limit);
  const text = (await readBodyLimited(req, limit)).toString("utf8");
  let raw: unknown;
  if (text.trim().length) {
    const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    // JSON only: a form or text/plain body is what a cross-site page can send without a preflight.
    if (type !== "application/json") {
      throw new DomainError("unsupported_media_type", "unsupported_media_type", "Send the body as application/json", [
        { field: "content-type", message: `got ${type || "none"}` },
      ]);
    }
    try {
      raw = JSON.parse(text);
    } catch {
      throw new BadRequestError("invalid_json", "The request body is not valid JSON", [{ field: "body", message: "invalid JSON" }]);
    }
  } else if (contract.bodyOptional) {
    raw = {};
  } else {
    throw new BadRequestError("invalid_json", "A JSON body is required", [{ field: "body", message: "empty body" }]);
  }
  checkJsonValue(raw);
  const r = contract.body!.safeParse(raw);
  if (!r.success) throw zodFailure(r.error, "body");
  return r.data;
}

function respond(contract: ApiContract, req: Request, out: unknown): Response {
  if (out instanceof Response) {
    if (CHECK_RESPONSES) checkStatus(contract, req, out.status);
    return out;
  }
  const status = out instanceof Reply ? out.status : (contract.status ?? 200);
  const data = out instanceof Reply ? out.data : out;
  if (CHECK_RESPONSES) {
    checkStatus(contract, req, status);
    if (contract.response && status !== 204) {
      const r = contract.response.safeParse(data);
      if (!r.success) {
        const first = r.error.issues[0];
        throw new Error(`Response of ${req.method} ${contract.path} breaks its schema at ${first.path.join(".") || "(root)"}: ${first.message}`);
      }
    }
  }
  const headers = out instanceof Reply ? out.headers : undefined;
  if (status === 204) return new Response(null, { status, headers });
  return Response.json(data, { status, headers });
}

function checkStatus(contract: ApiContract, req: Request, status: number) {
  const allowed = [contract.status ?? 200, ...(contract.alsoStatus ?? [])];
  if (!allowed.includes(status)) throw new Error(`${req.method} ${contract.path} answered ${status}, its contract says ${allowed.join(" or ")}`);
}
