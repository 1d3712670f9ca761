import { defineConfig } from "prisma/config";

// env('DATABASE_URL') would throw when unset; the embedded database needs no URL.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/memscope" },
});
