// Next.js calls register() once per runtime. The Node.js start lives in its own module, imported
// under the NEXT_RUNTIME test that Next.js inlines, so none of it (process.exit included) reaches
// the Edge bundle.
export async function register() {
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startNodeServer } = await import("./instrumentation-node");
    await startNodeServer();
  }
}
