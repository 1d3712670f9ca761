import { ALL_CONTRACTS } from "./contracts";

// Which methods each /api/v1 path answers, from the contracts. proxy.ts uses it to answer
// 405 with an Allow header before Next.js routes (which would answer TRACE with a 500).

type Entry = { pattern: RegExp; methods: Set<string> };

// Routes outside the contracts that still live under /api/v1.
const EXTRA: { path: string; methods: string[] }[] = [{ path: "/openapi.json", methods: ["GET"] }];

function compile(path: string): RegExp {
  const body = path
    .split("/")
    .map((seg) => (/^\{\w+\}$/.test(seg) ? "[^/]+" : seg.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^/api/v1${body}/?$`);
}

const TABLE: Entry[] = (() => {
  const byPath = new Map<string, Set<string>>();
  // The proxy runs for /api/v1 only; /api/auth shares its prefix with better-auth's handler.
  for (const c of ALL_CONTRACTS.filter((c) => !c.server)) byPath.set(c.path, (byPath.get(c.path) ?? new Set()).add(c.method));
  for (const e of EXTRA) byPath.set(e.path, new Set(e.methods));
  // Literal segments win over {params}: /conversations/facets before /conversations/{id}.
  return [...byPath.entries()]
    .sort(([a], [b]) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))
    .map(([path, methods]) => ({ pattern: compile(path), methods }));
})();

/** The methods a path answers (GET implies HEAD; OPTIONS always), or null for an unknown path. */
export function allowedMethods(pathname: string): string[] | null {
  const hit = TABLE.find((e) => e.pattern.test(pathname));
  if (!hit) return null;
  const m = new Set(hit.methods);
  if (m.has("GET")) m.add("HEAD");
  m.add("OPTIONS");
  return [...m];
}
