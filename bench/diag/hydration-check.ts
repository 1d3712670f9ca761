// npx tsx --conditions=react-server bench/diag/hydration-check.ts [path] [loads]
//
// Loads one page of a fresh seeded production server `loads` times in Chromium and prints
// every console error and page error (React's hydration errors, #418 and the like), to
// catch a mismatch that happens on some loads only. Serves the existing build; never builds.

import { chromium } from "playwright-core";
const chromiumPath = () => process.env.CHROMIUM_PATH || "/usr/bin/chromium";
import { makeTempDir, removeDir, runMain } from "../lib/common";
import { startBuiltServer } from "../lib/start-server-dist";

runMain("diag:hydration-check", async (cleanup) => {
  const target = process.argv[2] ?? "/memories?user=ana%40example.com";
  const loads = Number(process.argv[3] ?? 8);
  const dir = makeTempDir("memscope-hydration-");
  cleanup(() => removeDir(dir));
  const server = await startBuiltServer(dir, 120_000, "/api/v1/ready", { MEMSCOPE_SEED: "1" });
  cleanup(() => server.stop());
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  cleanup(() => browser.close());
  let bad = 0;
  for (let i = 0; i < loads; i++) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text().slice(0, 300)));
    page.on("pageerror", (e) => errors.push(`pageerror: ${e.message.slice(0, 300)}`));
    await page.goto(`${server.base}${target}`);
    await page.waitForLoadState("networkidle");
    if (errors.length) bad++;
    console.log(`load ${i + 1}: ${errors.length ? errors.join(" | ") : "no error"}`);
    await page.close();
  }
  console.log(`${bad} of ${loads} loads had errors`);
});
