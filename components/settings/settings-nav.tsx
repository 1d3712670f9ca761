"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useAuthState } from "@/client/hooks/auth";

const TABS = [
  { href: "/settings", label: "Project & account" },
  { href: "/settings/members", label: "Members" },
  { href: "/settings/profiles", label: "Agent profiles" },
  { href: "/settings/keys", label: "API keys", admin: true },
  { href: "/settings/retention", label: "Retention", admin: true },
  { href: "/settings/audit", label: "Audit log", admin: true },
];

export function SettingsNav() {
  const pathname = usePathname();
  const { data } = useAuthState();
  const admin = data?.scopes.includes("admin");
  return (
    <nav aria-label="Settings" className="flex gap-1 overflow-x-auto border-b border-zinc-200 text-sm dark:border-zinc-800">
      {TABS.filter((t) => !t.admin || admin).map((t) => {
        const active = pathname === t.href;
        return (
          <Link
            key={t.href}
            href={t.href}
            aria-current={active ? "page" : undefined}
            className={`-mb-px border-b-2 px-3 py-2 whitespace-nowrap ${active ? "border-indigo-600 font-medium text-zinc-900 dark:text-zinc-50" : "border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400"}`}
          >
            {t.label}
          </Link>
        );
      })}
    </nav>
  );
}

export function Section({ title, description, children }: { title: string; description?: string; children: React.ReactNode }) {
  return (
    <section className="rounded-xl border border-zinc-200 bg-white p-5 dark:border-zinc-800 dark:bg-zinc-950">
      <h2 className="text-base font-semibold">{title}</h2>
      {description && <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">{description}</p>}
      <div className="mt-4">{children}</div>
    </section>
  );
}

export const fmtTime = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "never");
