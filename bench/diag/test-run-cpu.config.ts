import path from "node:path";
import { defineConfig, mergeConfig } from "vitest/config";
import base from "../../vitest.config.ts";

// The project's Vitest configuration with the setup file of bench/diag/test-run-cpu.mjs added
// (each worker says which test file it runs); nothing else differs.
export default mergeConfig(
  base,
  defineConfig({ root: path.resolve(import.meta.dirname, "../.."), test: { setupFiles: [path.resolve(import.meta.dirname, "test-run-cpu-tag.ts")] } }),
);
