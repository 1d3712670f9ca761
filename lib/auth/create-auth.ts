import type { Env } from "./roles";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { organization } from "better-auth/plugins/organization";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import { apiKey } from "@better-auth/api-key";
import type { PrismaClient } from "../generated/prisma/client";
import { accessControl, roleDefinitions } from "./roles";
import { readOidcConfig } from "./oidc-config";
import { APIError } from "better-auth/api";
import { CLIENT_ADDRESS_HEADER } from "./client-address";
import { serverHosts, serverOrigins } from "./server-origins";
import { signInThrottleHooks } from "./sign-in-throttle";
import { accountCreated } from "./account-presence";

// The better-auth instance: accounts (email + password, optional OIDC), projects
// (organizations) with roles, and project API keys. No HTTP or Next.js here so
// scripts and tests build the same instance on their own database.

export const API_KEY_PREFIX = "msk_";

export type AuthSettings = {
  secret: string;
  /** MEMSCOPE_PUBLIC_URL: the address people use (https behind a proxy turns on Secure cookies). */
  publicUrl?: string;
  env?: Env;
};

export function createAuth(prisma: PrismaClient, settings: AuthSettings) {
  const env = settings.env ?? process.env;
  const oidc = readOidcConfig(env);
  const https = settings.publicUrl?.startsWith("https://") ?? false;
  const hosts = serverHosts(env);
  return betterAuth({
    appName: "Memscope",
    secret: settings.secret,
    // Without a public URL, the base URL (links, OIDC callbacks) follows the Host the request
    // names when it is one this server listens on (lib/auth/server-origins.ts), else the first.
    baseURL: settings.publicUrl ?? { allowedHosts: hosts, protocol: "http", fallback: `http://${hosts[0]}` },
    // Cookie-carrying writes must come from a page of ours: exactly these origins.
    trustedOrigins: serverOrigins({ ...env, MEMSCOPE_PUBLIC_URL: settings.publicUrl }),
    basePath: "/api/auth",
    database: prismaAdapter(prisma, { provider: "postgresql" }),
    telemetry: { enabled: false },
    logger: {
      // A wrong key is an everyday 401, not a server error worth a stack in the log.
      log: (level, message, ...args) => {
        if (message.startsWith("Failed to validate API key")) return;
        console[level](`[auth] ${message}`, ...args);
      },
    },
    emailAndPassword: {
      enabled: true,
      // Accounts are created by the first-run form, an admin or an invitation link, never by anyone who asks.
      disableSignUp: false,
      minPasswordLength: 10,
      autoSignIn: true,
    },
    databaseHooks: {
      user: {
        create: {
          // Nobody signs themselves up: the first admin comes through lib/auth/first-admin.ts
          // (a server call, no request), everyone else through an invitation link.
          before: async (user, ctx) => {
            // Our own server-side sign-up calls (first admin, invitation links) carry no request.
            if (ctx && !ctx.request && ctx.path === "/sign-up/email") return;
            const invited = await prisma.invitation.findFirst({
              where: { email: String(user.email).toLowerCase(), status: "pending", expiresAt: { gt: new Date() } },
              select: { id: true },
            });
            // The public sign-up endpoint never; single sign-on only for an invited address.
            if (ctx?.path?.startsWith("/sign-up") || !invited) {
              throw new APIError("FORBIDDEN", { message: "Accounts are created by invitation: ask a project admin for a link", code: "SIGN_UP_BY_INVITATION" });
            }
          },
          // The open mode (no account yet) ends with the first account, at once (lib/auth/access.ts noAccountYet).
          after: async () => accountCreated(prisma),
        },
      },
    },
    session: { expiresIn: 60 * 60 * 24 * 14, updateAge: 60 * 60 * 24 },
    hooks: signInThrottleHooks(),
    // better-auth's per-address limits stay on the rest of /api/auth; email sign-in has its
    // own, per address and account (lib/auth/sign-in-throttle.ts).
    rateLimit: { customRules: { "/sign-in/email": false } },
    advanced: {
      // better-auth skips its origin and CSRF checks when TEST is set or NODE_ENV is "test":
      // an environment must never be able to turn them off.
      disableOriginCheck: false,
      disableCSRFCheck: false,
      // The client address serve.mjs sets (the socket's peer; X-Forwarded-For only from a
      // MEMSCOPE_TRUSTED_PROXIES proxy), never a header the client writes.
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
      useSecureCookies: https,
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax", secure: https },
      cookiePrefix: "memscope",
    },
    plugins: [
      organization({
        ac: accessControl,
        roles: roleDefinitions,
        creatorRole: "owner",
        // Projects are made from the settings page by people who already have an account.
        allowUserToCreateOrganization: true,
        invitationExpiresIn: 60 * 60 * 24 * 7,
        cancelPendingInvitationsOnReInvite: true,
      }),
      apiKey({
        references: "organization",
        defaultPrefix: API_KEY_PREFIX,
        requireName: true,
        maximumNameLength: 80,
        enableMetadata: true,
        startingCharactersConfig: { shouldStore: true, charactersLength: API_KEY_PREFIX.length + 6 },
        keyExpiration: { minExpiresIn: 1, maxExpiresIn: 3650 },
        // Its window restarts only after a quiet spell, so a steady client at the limit would stay
        // locked out: lib/auth/rate-limit.ts counts fixed windows instead. Requests check keys with
        // verify-project-key.ts (one read; lastRequest stamped at most once a minute).
        rateLimit: { enabled: false },
      }),
      ...(oidc
        ? [
            genericOAuth({
              config: [
                {
                  providerId: "oidc",
                  name: oidc.name,
                  discoveryUrl: oidc.discoveryUrl,
                  clientId: oidc.clientId,
                  clientSecret: oidc.clientSecret,
                  scopes: ["openid", "email", "profile"],
                  pkce: true,
                },
              ],
            }),
          ]
        : []),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;
