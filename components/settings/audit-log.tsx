"use client";
import { useAuthState } from "@/client/hooks/auth";
import { ErrorBox } from "@/components/ui/states";
import { auditFileName, downloadJson } from "@/client/ui/download";
import { Button } from "@/components/ui/button";
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
  "user.erased": "erased the end user",
  "text.erased": "erased strings in",
  "retention.rule_created": "added retention rule",
  "retention.rule_changed": "changed retention rule",
  "retention.rule_deleted": "removed retention rule",
  "retention.run": "ran retention rule",
  "incident.judged": "judged incident",
  "incident.scan_started": "started incident scan",
};

/** Erasure receipts and retention runs: their details are the document to keep. */
const DOWNLOADABLE: Record<string, string> = { "user.erased": "receipt", "text.erased": "receipt", "retention.run": "run" };

function detail(action: string, d: unknown): string {
  const x = (d ?? {}) as Record<string, unknown>;
  if (action === "member.role_changed") return `${x.from} → ${x.to}`;
  if (action.startsWith("key.") && Array.isArray(x.scopes)) return `scopes ${x.scopes.join(", ")}`;
  if (x.role) return `as ${x.role}`;
  if (action.endsWith(".erased") && typeof x.total === "number") return `${x.total} rows${(x.probes as { passed?: boolean } | undefined)?.passed ? ", probes passed" : ""}`;
  if (action === "retention.run" && x.counts) return Object.entries(x.counts as Record<string, number>).map(([k, n]) => `${n} ${k}`).join(", ");
  if (action.startsWith("retention.rule") && x.kind) return `${String(x.kind).replace(/_/g, " ")} after ${x.days} days`;
  return "";
}

export function AuditLog() {
  const { data: state } = useAuthState();
  const admin = !!state?.scopes.includes("admin");
  const audit = useAudit(admin);
  if (state && !admin) return <p className="text-sm text-zinc-600">Only project admins read the audit log.</p>;
  return (
    <Section title="Audit log" description="Who changed access to this project (keys, members, roles, invitations), erasures of personal data with their receipts, retention rules and their runs. Newest first.">
      {audit.isError && <ErrorBox error={audit.error} onRetry={() => audit.refetch()} />}
      {audit.data && audit.data.data.length === 0 && <p className="text-sm text-zinc-500">Nothing yet.</p>}
      {audit.data && audit.data.data.length > 0 && (
        <ol className="divide-y divide-zinc-100 text-sm dark:divide-zinc-800">
          {audit.data.data.map((e) => (
            <li key={e.id} className="flex flex-wrap items-start gap-x-3 gap-y-1 py-2" data-testid="audit-row">
              <time dateTime={e.created_at} className="w-44 shrink-0 text-xs text-zinc-500 tabular-nums">
                {fmtTime(e.created_at)}
              </time>
              <span className="min-w-0 flex-1 basis-64">
                <span className="font-medium">{e.actor}</span> {WHAT[e.action] ?? e.action} <span className="font-medium break-all">{e.target}</span>{" "}
                <span className="text-zinc-500">{detail(e.action, e.details)}</span>
              </span>
              {DOWNLOADABLE[e.action] && (
                <Button
                  size="sm"
                  data-testid="audit-download"
                  onClick={() => downloadJson(auditFileName(e), e.details)}
                  aria-label={`Download ${DOWNLOADABLE[e.action]} of ${fmtTime(e.created_at)}`}
                >
                  Download {DOWNLOADABLE[e.action]}
                </Button>
              )}
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
