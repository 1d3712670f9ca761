import { toNextJsHandler } from "better-auth/next-js";
import { getAuth } from "@/lib/auth/auth";
import { refuseShutAuthEndpoint } from "@/lib/api/auth-endpoint-policy";

// better-auth's own endpoints, only those the pages use (sign-in, sign-out, single sign-on,
// password change: lib/api/auth-endpoint-policy.ts); every other path answers 404.
// The instance needs the database, which opens lazily: build it on the first request.
export const { GET, POST, PATCH, PUT, DELETE } = toNextJsHandler(async (req: Request) => refuseShutAuthEndpoint(req) ?? (await getAuth()).handler(req));
