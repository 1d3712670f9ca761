import { describe, expect, it } from "vitest";
// @ts-expect-error plain JavaScript module of the server script (no types)
import { CLIENT_ADDRESS_HEADER as SERVE_HEADER, clientAddress, parseTrustedProxies } from "../../scripts/client-address.mjs";
import { CLIENT_ADDRESS_HEADER } from "@/lib/auth/client-address";
import { serverHosts, serverOrigins } from "@/lib/auth/server-origins";
import { startRules } from "@/lib/auth/start-rules";
import { FailureLimiter } from "@/lib/auth/rate-limit";
import { ACCOUNT_BACKOFF_CAP_MS, ACCOUNT_FREE, ADDRESS_MAX, PAIR_MAX, PAIR_WINDOW_MS, SignInThrottle } from "@/lib/auth/sign-in-throttle";

// The rules behind what /api/auth trusts (tests/api/auth-trust.test.ts drives them through the
// server): the client's address, the server's own origins, the start rule for the bootstrap
// key, and the sign-in limits over time (a clock passed in, so minutes take no time).

describe("client address", () => {
  const none = parseTrustedProxies(undefined);
  const proxies = parseTrustedProxies("10.0.0.0/8, ::1");

  it("is the socket's peer; X-Forwarded-For is not read from a peer that is not a listed proxy", () => {
    expect(clientAddress("198.51.100.4", undefined, none)).toBe("198.51.100.4");
    expect(clientAddress("198.51.100.4", "1.2.3.4", none)).toBe("198.51.100.4");
    expect(clientAddress("198.51.100.4", "1.2.3.4", proxies)).toBe("198.51.100.4");
    expect(clientAddress("::ffff:198.51.100.4", "1.2.3.4", none)).toBe("198.51.100.4");
    expect(clientAddress(undefined, "1.2.3.4", none)).toBe("unknown");
  });

  it("behind listed proxies: the rightmost hop no listed proxy is, never a client's own prefix", () => {
    expect(clientAddress("10.0.0.2", "203.0.113.9", proxies)).toBe("203.0.113.9");
    // A client wrote "192.0.2.1" itself; the proxy appended the address it saw.
    expect(clientAddress("10.0.0.2", "192.0.2.1, 203.0.113.9", proxies)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.2", "192.0.2.1, 203.0.113.9, 10.0.0.7", proxies)).toBe("203.0.113.9");
    expect(clientAddress("::1", "10.0.0.5", proxies)).toBe("10.0.0.5"); // all proxies: the farthest
    expect(clientAddress("10.0.0.2", "not-an-ip, 203.0.113.9", proxies)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.2", "203.0.113.9, garbage", proxies)).toBe("10.0.0.2");
  });

  it("MEMSCOPE_TRUSTED_PROXIES names the entry it cannot read", () => {
    expect(() => parseTrustedProxies("10.0.0.0/8, proxy.lan")).toThrow(/"proxy\.lan" is not an IP address or CIDR range/);
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow(/"10\.0\.0\.0\/33"/);
  });

  it("the app reads the header serve.mjs writes", () => {
    expect(CLIENT_ADDRESS_HEADER).toBe(SERVE_HEADER);
  });
});

describe("the server's own origins", () => {
  it("a loopback listener is 127.0.0.1, localhost and [::1] on its port", () => {
    expect(serverOrigins({})).toEqual(["http://127.0.0.1:3000", "http://localhost:3000", "http://[::1]:3000"]);
    expect(serverHosts({ PORT: "4100", HOST: "localhost" })).toEqual(["127.0.0.1:4100", "localhost:4100", "[::1]:4100"]);
  });

  it("0.0.0.0 adds this machine's addresses; another HOST is itself; MEMSCOPE_PUBLIC_URL comes first", () => {
    const all = serverHosts({ HOST: "0.0.0.0", PORT: "3000" });
    expect(all.slice(0, 3)).toEqual(["127.0.0.1:3000", "localhost:3000", "[::1]:3000"]);
    expect(serverOrigins({ HOST: "memscope.lan", PORT: "80" })).toEqual(["http://memscope.lan:80"]);
    expect(serverOrigins({ MEMSCOPE_PUBLIC_URL: "https://memscope.example.com/app" })[0]).toBe("https://memscope.example.com");
    expect(serverOrigins({ MEMSCOPE_PUBLIC_URL: "https://memscope.example.com" })).not.toContain("http://localhost");
  });
});

describe("the bootstrap key at start", () => {
  it("is refused under 32 characters, with how to make one", () => {
    const v = startRules({ accountExists: true, env: { MEMSCOPE_API_KEY: "x".repeat(31) } });
    expect(v.refuse).toContain("MEMSCOPE_API_KEY is 31 characters long; the bootstrap key needs at least 32");
    expect(v.refuse).toContain("openssl rand -hex 32");
    expect(startRules({ accountExists: true, env: { MEMSCOPE_API_KEY: "x".repeat(32) } }).refuse).toBeNull();
  });
});

describe("sign-in limits over time", () => {
  const T0 = 1_000_000_000;

  it("per address and account: PAIR_MAX failures, then a wait until the window closes; a right password clears it", () => {
    const t = new SignInThrottle();
    for (let i = 0; i < PAIR_MAX; i++) {
      expect(t.check("a", "x@e", T0 + i)).toEqual({ ok: true });
      t.failed("a", "x@e", T0 + i);
    }
    const held = t.check("a", "x@e", T0 + 1000);
    expect(held).toMatchObject({ ok: false });
    expect(held.ok ? 0 : held.retryAfterSeconds).toBeGreaterThan(PAIR_WINDOW_MS / 1000 - 5);
    // Another address: past the account's 1 s back-off (ten failures in a row), free.
    expect(t.check("b", "x@e", T0 + 2000)).toMatchObject({ ok: true });
    expect(t.check("a", "x@e", T0 + PAIR_WINDOW_MS)).toEqual({ ok: true });
  });

  it("per account: backs off 1 s doubling, never past the cap, and never for an address that signed in before", () => {
    const t = new SignInThrottle();
    t.succeeded("home", "x@e", T0);
    let now = T0;
    const waits: number[] = [];
    for (let i = 0; i < ACCOUNT_FREE + 8; i++) {
      const v = t.check(`stranger-${i}`, "x@e", now);
      if (!v.ok) {
        waits.push(v.retryAfterSeconds);
        expect(t.check("home", "x@e", now)).toEqual({ ok: true });
        now += v.retryAfterSeconds * 1000;
      }
      t.failed(`stranger-${i}`, "x@e", now);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 30, 30, 30]);
    expect(Math.max(...waits) * 1000).toBe(ACCOUNT_BACKOFF_CAP_MS);
    t.succeeded("home", "x@e", now);
    expect(t.check("new-place", "x@e", now)).toEqual({ ok: true });
  });

  it("per address, over any accounts: ADDRESS_MAX attempts a minute", () => {
    const t = new SignInThrottle();
    for (let i = 0; i < ADDRESS_MAX; i++) expect(t.check("a", `u${i}@e`, T0)).toEqual({ ok: true });
    expect(t.check("a", "another@e", T0)).toMatchObject({ ok: false });
    expect(t.check("a", "another@e", T0 + 60_000)).toEqual({ ok: true });
  });

  it("FailureLimiter counts failures only, in a window opened by the first", () => {
    const f = new FailureLimiter(2, 10_000);
    f.fail("k", T0);
    expect(f.retryAfter("k", T0)).toBe(0);
    f.fail("k", T0 + 1000);
    expect(f.retryAfter("k", T0 + 1000)).toBe(9);
    expect(f.retryAfter("k", T0 + 10_000)).toBe(0);
    f.clear("k");
    expect(f.retryAfter("k", T0 + 1000)).toBe(0);
  });
});
