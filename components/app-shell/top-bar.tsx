"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { ProjectSwitcher } from "@/components/auth/project-switcher";
import { useIncidentSummary } from "@/client/hooks/incidents";
import { formatCompact } from "@/client/ui/format";
import { useEffect, useState, type ReactNode } from "react";

const NAV = [
  { href: "/conversations", label: "Conversations" },
  { href: "/memories", label: "Memories" },
  { href: "/incidents", label: "Incidents" },
  { href: "/inspect", label: "Inspector" },
  { href: "/import", label: "Import" },
  { href: "/evals", label: "Evals" },
  { href: "/docs/api", label: "API docs" },
];

const linkClass = (active: boolean) =>
  `rounded-md px-2.5 py-1.5 whitespace-nowrap transition-colors ${
    active
      ? "bg-zinc-100 font-medium text-zinc-900 dark:bg-zinc-800 dark:text-zinc-50"
      : "text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-900 dark:hover:text-zinc-100"
  }`;

/** Open high-severity incidents, as a count after the Incidents link (nothing when there are none). */
function IncidentBadge({ count, testId }: { count: number; testId: string }) {
  if (count <= 0) return null;
  return (
    <span data-testid={testId} data-count={count} className="ml-1.5 inline-flex min-w-5 items-center justify-center rounded-full bg-red-600 px-1.5 text-[11px] leading-5 font-semibold text-white tabular-nums">
      {formatCompact(count)}
      <span className="sr-only"> open high-severity</span>
    </span>
  );
}

const NavLink = ({ href, label, active, high, testId }: { href: string; label: string; active: boolean; high: number; testId: string }) => (
  <Link
    href={href}
    aria-current={active ? "page" : undefined}
    title={href === "/incidents" && high > 0 ? `${high} open high-severity incident${high === 1 ? "" : "s"}` : undefined}
    className={`inline-flex items-center ${linkClass(active)}`}
  >
    {label}
    {href === "/incidents" && <IncidentBadge count={high} testId={testId} />}
  </Link>
);

/**
 * The app's header. `right` is a slot for items on the right (a project switcher, the account menu):
 * they stay visible at every width, while the page links fold into a menu below 1280 px (seven
 * links beside a signed-in account's project, Settings and Sign out need that much).
 */
export function TopBar({ right }: { right?: ReactNode }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  // A link followed from the menu closes it.
  useEffect(() => setOpen(false), [pathname]);
  const isActive = (href: string) => pathname === href || pathname.startsWith(`${href}/`);
  const summary = useIncidentSummary({ badge: true });
  const high = summary.data?.open_high ?? 0;
  return (
    <header className="sticky top-0 z-30 border-b border-zinc-200 bg-white/85 backdrop-blur dark:border-zinc-800 dark:bg-zinc-950/85">
      <a
        href="#main"
        data-testid="skip-link"
        className="sr-only rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50"
      >
        Skip to content
      </a>
      <div className="flex h-12 min-w-0 items-center gap-3 px-4 sm:gap-6 sm:px-6">
        <Link href="/conversations" className="flex shrink-0 items-center gap-2 rounded-md text-[15px] font-semibold tracking-tight">
          <span aria-hidden className="grid size-6 place-items-center rounded-md bg-indigo-600 text-[11px] font-bold text-white">M</span>
          {/* Below 640 px the project picker, Sign out and Menu need the room: the logo stands alone. */}
          <span className="sr-only sm:not-sr-only">Memscope</span>
        </Link>
        <nav aria-label="Main" className="hidden items-center gap-1 text-sm xl:flex" data-testid="main-nav">
          {NAV.map((item) => (
            <NavLink key={item.href} href={item.href} label={item.label} active={isActive(item.href)} high={high} testId="nav-incident-badge" />
          ))}
        </nav>
        <div className="ml-auto flex min-w-0 items-center gap-2" data-testid="top-bar-right">
          <ProjectSwitcher />
          {right}
          <button
            type="button"
            data-testid="nav-menu-button"
            aria-expanded={open}
            aria-controls="main-menu"
            onClick={() => setOpen((o) => !o)}
            className="inline-flex h-8 shrink-0 items-center gap-1.5 whitespace-nowrap rounded-md border border-zinc-300 px-2.5 text-sm font-medium xl:hidden dark:border-zinc-700"
          >
            <svg aria-hidden viewBox="0 0 16 16" className="size-4" fill="none" stroke="currentColor" strokeWidth="1.6">
              {open ? <path d="M4 4l8 8M12 4l-8 8" /> : <path d="M2.5 4.5h11M2.5 8h11M2.5 11.5h11" />}
            </svg>
            Menu
            {/* The links are folded away: the count shows on the button that opens them. */}
            <IncidentBadge count={high} testId="menu-button-incident-badge" />
          </button>
        </div>
      </div>
      {open && (
        <nav id="main-menu" aria-label="Main" data-testid="main-menu" className="flex flex-col gap-0.5 border-t border-zinc-200 px-3 py-2 text-sm xl:hidden dark:border-zinc-800">
          {NAV.map((item) => (
            <NavLink key={item.href} href={item.href} label={item.label} active={isActive(item.href)} high={high} testId="menu-incident-badge" />
          ))}
          {/* Below 640 px the project switcher leaves Settings to this menu. */}
          <Link href="/settings" aria-current={isActive("/settings") ? "page" : undefined} className={`sm:hidden ${linkClass(isActive("/settings"))}`}>
            Settings
          </Link>
        </nav>
      )}
    </header>
  );
}
