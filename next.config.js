/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native/WASM packages load their own files at run time: keep them out of the bundle.
  serverExternalPackages: [
    "tiktoken",
    "@electric-sql/pglite",
    "@electric-sql/pglite-pgvector",
    "pglite-prisma-adapter",
    "pg",
    "@prisma/adapter-pg",
  ],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
