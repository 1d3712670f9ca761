"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { ProjectSwitcher } from "@/components/auth/project-switcher";

const NAV = [
  { href: "/conversations", label: "Conversations" },
  { href: "/memories", label: "Memories" },
  { href: "/inspect", label: "Inspector" },
  { href: "/docs/api", label: "API docs" },
];

export function TopBar() {
  const pathname = usePathname();
  return (
    <header className="sticky top-0 z-30 border-b border-zinc-200 bg-white/85 backdrop-blur dark:border-zinc-800 dark:bg-zinc-950/85">
      <div className="flex h-12 items-center gap-6 px-4 sm:px-6">
        <Link href="/conversations" className="flex items-center gap-2 rounded-md text-[15px] font-semibold tracking-tight">
          <span aria-hidden className="grid size-6 place-items-center rounded-md bg-indigo-600 text-[11px] font-bold text-white">M</span>
          Memscope
        </Link>
        <nav aria-label="Main" className="flex items-center gap-1 text-sm">
          {NAV.map((item) => {
            const active = pathname === item.href || pathname.startsWith(`${item.href}/`);
            return (
              <Link
                key={item.href}
                href={item.href}
                aria-current={active ? "page" : undefined}
                className={`rounded-md px-2.5 py-1.5 transition-colors ${
                  active
                    ? "bg-zinc-100 font-medium text-zinc-900 dark:bg-zinc-800 dark:text-zinc-50"
                    : "text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-900 dark:hover:text-zinc-100"
                }`}
              >
                {item.label}
              </Link>
            );
          })}
        </nav>
        <ProjectSwitcher />
      </div>
    </header>
  );
}
