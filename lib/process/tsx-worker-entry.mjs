// Worker entry used only when the app runs unbundled (tsx scripts, Vitest): loads the worker's
// TypeScript module (workerData.entry, a file URL) through tsx's loader. A built server starts
// the bundled worker instead; the bundler still sees this file, so tsx is imported at run time
// and left out of the bundle.
import { workerData } from "node:worker_threads";

const { tsImport } = await import(/* turbopackIgnore: true */ /* webpackIgnore: true */ "tsx/esm/api");
await tsImport(workerData.entry, import.meta.url);
