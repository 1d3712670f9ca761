import type { ReactNode } from "react";
import { SettingsNav } from "@/components/settings/settings-nav";

export const metadata = { title: { default: "Settings", template: "%s · Settings · Memscope" } };

export default function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <main className="mx-auto flex w-full max-w-5xl flex-col gap-6 px-4 py-6 sm:px-6">
      <h1 className="text-xl font-semibold tracking-tight">Settings</h1>
      <SettingsNav />
      {children}
    </main>
  );
}
