/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native/WASM packages load their own files at run time: keep them out of the bundle.
  serverExternalPackages: [
    "tiktoken",
    "piscina",
    "@electric-sql/pglite",
    "@electric-sql/pglite-pgvector",
    "pglite-prisma-adapter",
    "pg",
    "@prisma/adapter-pg",
    "sql.js",
  ],
  poweredByHeader: false,
  // Lets several builds of one checkout coexist (parallel work, benchmarks); CI uses .next.
  distDir: process.env.MEMSCOPE_NEXT_DIST_DIR || ".next",
  // For those parallel builds, and `npm test`, which runs `tsc --noEmit` alongside the tests instead
  // (scripts/run-tests.mjs); `npm start` always type-checks in the build.
  typescript: { ignoreBuildErrors: process.env.MEMSCOPE_BUILD_SKIP_TYPECHECK === "1" },
  typedRoutes: false,
  experimental: {
    // The proxy (proxy.ts) buffers request bodies and silently cuts them at 10 MB by default,
    // which turned larger JSON bodies into "invalid JSON". Imports send files up to 200 MiB
    // (lib/imports/schemas.ts MAX_IMPORT_BYTES); each route still enforces its own bodyLimit.
    proxyClientMaxBodySize: 210 * 1024 * 1024,
  },
};

export default nextConfig;
