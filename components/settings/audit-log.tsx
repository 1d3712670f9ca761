"use client";
import { useAuthState } from "@/client/hooks/auth";
import { ErrorBox } from "@/components/ui/states";
import { fmtTime, Section } from "./settings-nav";
import { useAudit } from "@/client/hooks/project";

const WHAT: Record<string, string> = {
  "key.created": "created key",
  "key.revoked": "revoked key",
  "member.added": "added member",
  "member.removed": "removed member",
  "member.role_changed": "changed the role of",
  "invitation.created": "invited",
  "invitation.cancelled": "cancelled the invitation of",
};

function detail(action: string, d: unknown): string {
  const x = (d ?? {}) as Record<string, unknown>;
  if (action === "member.role_changed") return `${x.from} → ${x.to}`;
  if (action.startsWith("key.") && Array.isArray(x.scopes)) return `scopes ${x.scopes.join(", ")}`;
  if (x.role) return `as ${x.role}`;
  return "";
}

export function AuditLog() {
  const { data: state } = useAuthState();
  const admin = !!state?.scopes.includes("admin");
  const audit = useAudit(admin);
  if (state && !admin) return <p className="text-sm text-zinc-600">Only project admins read the audit log.</p>;
  return (
    <Section title="Audit log" description="Who changed access to this project: keys, members, roles, invitations. Newest first.">
      {audit.isError && <ErrorBox error={audit.error} onRetry={() => audit.refetch()} />}
      {audit.data && audit.data.data.length === 0 && <p className="text-sm text-zinc-500">Nothing yet.</p>}
      {audit.data && audit.data.data.length > 0 && (
        <ol className="divide-y divide-zinc-100 text-sm dark:divide-zinc-800">
          {audit.data.data.map((e) => (
            <li key={e.id} className="flex flex-wrap gap-x-3 py-2" data-testid="audit-row">
              <time dateTime={e.created_at} className="w-44 shrink-0 text-xs text-zinc-500 tabular-nums">
                {fmtTime(e.created_at)}
              </time>
              <span>
                <span className="font-medium">{e.actor}</span> {WHAT[e.action] ?? e.action} <span className="font-medium">{e.target}</span>{" "}
                <span className="text-zinc-500">{detail(e.action, e.details)}</span>
              </span>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
