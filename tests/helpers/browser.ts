import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";

// Debian's Chromium driven by playwright-core (no browser downloads here). The flags
// keep Chromium off the network it would otherwise try to reach at start.
export function chromiumPath(): string {
  for (const p of [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (p && fs.existsSync(p)) return p;
  }
  throw new Error("Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)");
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

export const SCREENSHOT_DIR = path.resolve(__dirname, "../../test-results/screenshots");

export function screenshotPath(name: string): string {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name}.png`);
}
