import { toNextJsHandler } from "better-auth/next-js";
import { getAuth } from "@/lib/auth/auth";

// better-auth's own endpoints (sign-in, sign-up, sign-out, sessions, organizations, keys).
// The instance needs the database, which opens lazily: build it on the first request.
export const { GET, POST, PATCH, PUT, DELETE } = toNextJsHandler(async (req: Request) => (await getAuth()).handler(req));
