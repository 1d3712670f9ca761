import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TopBar } from "@/components/app-shell/top-bar";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Memscope", template: "%s · Memscope" },
  description: "Inspect the memory of LLM agents: conversation trees and prompt windows.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-full flex-col">
        <Providers>
          <TopBar />
          <div className="flex min-h-0 flex-1 flex-col">{children}</div>
        </Providers>
      </body>
    </html>
  );
}
