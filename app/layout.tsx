import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TopBar } from "@/components/app-shell/top-bar";
import { SessionGate } from "@/components/auth/session-gate";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Memscope", template: "%s · Memscope" },
  description: "Inspect the memory of LLM agents: conversation trees and prompt windows.",
  // Inline icon: no public/ asset to own, and no 404 in the console.
  icons: {
    icon: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='7' fill='%234f46e5'/%3E%3Ctext x='16' y='22' font-family='system-ui,sans-serif' font-size='17' font-weight='700' fill='white' text-anchor='middle'%3EM%3C/text%3E%3C/svg%3E",
  },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-full flex-col">
        <Providers>
          <TopBar />
          {/* The skip link's target; each page renders its own <main> inside. */}
          <div id="main" tabIndex={-1} className="flex min-h-0 min-w-0 flex-1 flex-col outline-none">
            <SessionGate>{children}</SessionGate>
          </div>
        </Providers>
      </body>
    </html>
  );
}
