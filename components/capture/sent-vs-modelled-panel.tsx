"use client";
import { useState } from "react";
import type { paths } from "@/client/transport";
import { absoluteTime, formatInt, oneLine, plural } from "@/client/ui/format";
import { Badge } from "@/components/ui/badge";
import { Stat } from "@/components/ui/stat";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { useCapturedTurns, useSentVsModelled } from "@/client/hooks/captures";

// "Sent vs modelled", on the conversation page (a tab) and the replay page (a tab, for a
// captured turn): for a turn captured over OTLP, the prompt the agent really sent beside the
// one Memscope computes for the agent's profile, with the histories aligned message by
// message ("your agent keeps 40 messages, your profile says 20").

type Result = paths["/conversations/{id}/captures/{message_id}"]["get"]["responses"][200]["content"]["application/json"];
type Line = Result["sent"]["messages"][number];
type Row = Result["diff"]["rows"][number];

const ROW_STYLE: Record<Row["status"], { label: string; cls: string }> = {
  both: { label: "in both", cls: "border-zinc-200 dark:border-zinc-800" },
  sent_only: { label: "only sent", cls: "border-amber-400 bg-amber-50 dark:border-amber-600 dark:bg-amber-950/40" },
  modelled_only: { label: "only modelled", cls: "border-sky-400 bg-sky-50 dark:border-sky-600 dark:bg-sky-950/40" },
};

export function SentVsModelledPanel({ conversationId, leafId }: { conversationId: string; leafId: string | null }) {
  const list = useCapturedTurns(conversationId);
  const turns = list.data?.data ?? [];
  const [picked, setPicked] = useState<string | null>(null);
  // The selected turn when it was captured, else the newest captured turn.
  const current = picked ?? (turns.some((t) => t.message_id === leafId) ? leafId : (turns.at(-1)?.message_id ?? null));

  if (list.isError) return <div className="p-4"><ErrorBox title="Could not load the captured turns" error={list.error} onRetry={() => list.refetch()} /></div>;
  if (!list.data) return <div className="flex items-center gap-2 p-6 text-sm text-zinc-500"><Spinner /> Loading captured turns…</div>;
  return (
    <div className="min-h-0 flex-1 space-y-4 overflow-y-auto p-4" data-testid="sent-vs-modelled">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <label htmlFor="captured-turn" className="font-medium">Captured turn</label>
        <select
          id="captured-turn"
          data-testid="captured-turn"
          className="max-w-full min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900"
          value={current ?? ""}
          onChange={(e) => setPicked(e.target.value)}
        >
          {turns.map((t, i) => (
            <option key={t.message_id} value={t.message_id}>
              {`#${i + 1} · ${t.request_model ?? t.operation} · ${absoluteTime(t.started_at)} · ${plural(t.input_message_count, "input message")}`}
            </option>
          ))}
        </select>
      </div>
      {current && <CapturedTurnComparison conversationId={conversationId} messageId={current} />}
    </div>
  );
}

/**
 * One captured turn: what its agent sent beside what Memscope models for it (for a
 * conversation with an end user, POST /replay's prompt of the turn), the difference drawn.
 * The conversation page's tab shows it for the turn picked, the replay page for the turn replayed.
 */
export function CapturedTurnComparison({ conversationId, messageId }: { conversationId: string; messageId: string }) {
  const q = useSentVsModelled(conversationId, messageId);
  if (q.isError) return <ErrorBox title="Could not compare this turn" error={q.error} onRetry={() => q.refetch()} />;
  if (!q.data) return <div className="flex items-center gap-2 text-sm text-zinc-600 dark:text-zinc-400"><Spinner /> Computing the modelled prompt…</div>;
  return <Comparison r={q.data} />;
}

function Comparison({ r }: { r: Result }) {
  const d = r.diff;
  const agrees = d.history.sent === d.history.modelled && !d.history.sent_only && !d.history.modelled_only && d.system_matches && d.query_matches;
  const profile = r.modelled.profile.source === "profile" ? `profile v${r.modelled.profile.version}` : "default settings (no profile)";
  const sentSystem = r.sent.messages.filter((l) => l.section === "system" || l.section === "memories");
  const modelledSystem = r.modelled.messages.filter((l) => l.section === "system" || l.section === "memories");
  const sentQuery = r.sent.messages.filter((l) => l.section === "query");
  const modelledQuery = r.modelled.messages.filter((l) => l.section === "query");
  return (
    <>
      <p
        role="status"
        data-testid="capture-summary"
        className={`rounded-md border px-3 py-2 text-sm font-medium ${agrees ? "border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-700 dark:bg-emerald-950/40 dark:text-emerald-200" : "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-200"}`}
      >
        {d.summary}
      </p>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        Modelled with <strong>{profile}</strong> of <code className="font-mono">{r.app_id}</code>: {String(r.modelled.strategy.type)}, {r.modelled.model}
        {r.modelled.memories === "no_end_user" ? ", no memories (the conversation has no end user)" : ""}. Span{" "}
        <code className="font-mono">{r.captured.span_id}</code> of trace <code className="font-mono">{r.captured.trace_id}</code> ({r.captured.message_form === "events" ? "event form" : "message attributes"}).
      </p>
      <dl className="grid grid-cols-2 gap-2 text-sm sm:grid-cols-3">
        <Stat label="Sent history" value={formatInt(d.history.sent)} testId="stat-sent-history" warn={d.history.sent !== d.history.modelled} />
        <Stat label="Modelled history" value={formatInt(d.history.modelled)} testId="stat-modelled-history" warn={d.history.sent !== d.history.modelled} />
        <Stat label="In both" value={formatInt(d.history.both)} testId="stat-both" />
        <Stat label="Only sent" value={formatInt(d.history.sent_only)} testId="stat-sent-only" warn={d.history.sent_only > 0} />
        <Stat label="Only modelled" value={formatInt(d.history.modelled_only)} testId="stat-modelled-only" warn={d.history.modelled_only > 0} />
        <Stat label="Tokens sent / modelled" value={`${formatInt(r.sent.tokens)} / ${formatInt(r.modelled.tokens)}`} testId="stat-tokens" />
      </dl>
      <div className="hidden grid-cols-2 gap-2 text-xs font-semibold text-zinc-600 sm:grid dark:text-zinc-400" aria-hidden="true">
        <span>Sent by the agent</span>
        <span>Modelled for the profile</span>
      </div>
      <ol className="space-y-2" data-testid="capture-rows" aria-label="The two prompts, aligned">
        <Pair label="System" sent={sentSystem} modelled={modelledSystem} same={d.system_matches} testId="capture-system" />
        {d.rows.map((row, i) => (
          <li key={i} data-testid="capture-row" data-status={row.status} className={`grid grid-cols-1 gap-2 rounded-md border p-2 text-sm sm:grid-cols-2 ${ROW_STYLE[row.status].cls}`}>
            <Cell side="Sent" line={row.status === "modelled_only" ? null : row} badge={ROW_STYLE[row.status].label} />
            <Cell side="Modelled" line={row.status === "sent_only" ? null : row} badge={ROW_STYLE[row.status].label} />
          </li>
        ))}
        <Pair label="New input" sent={sentQuery} modelled={modelledQuery} same={d.query_matches} testId="capture-query" />
      </ol>
    </>
  );
}

function Pair({ label, sent, modelled, same, testId }: { label: string; sent: Line[]; modelled: Line[]; same: boolean; testId: string }) {
  const text = (lines: Line[]) => lines.map((l) => l.content).join("\n\n");
  return (
    <li data-testid={testId} data-same={same} className={`grid grid-cols-1 gap-2 rounded-md border p-2 text-sm sm:grid-cols-2 ${same ? "border-zinc-200 dark:border-zinc-800" : "border-amber-400 bg-amber-50 dark:border-amber-600 dark:bg-amber-950/40"}`}>
      {[["Sent", sent], ["Modelled", modelled]].map(([side, lines]) => (
        <div key={side as string} className="min-w-0">
          <p className="mb-1 text-xs font-semibold text-zinc-600 dark:text-zinc-400">
            {label} · {side as string}
            {!same && <span className="ml-1 text-amber-800 dark:text-amber-300">(differs)</span>}
          </p>
          <p className="break-words whitespace-pre-wrap">{text(lines as Line[]) || <span className="text-zinc-600 italic dark:text-zinc-400">none</span>}</p>
        </div>
      ))}
    </li>
  );
}

function Cell({ side, line, badge }: { side: string; line: Row | null; badge: string }) {
  return (
    <div className="min-w-0">
      <p className="mb-1 flex items-center gap-1 text-xs text-zinc-600 sm:sr-only dark:text-zinc-400">{side}</p>
      {line ? (
        <div className="min-w-0">
          <span className="mr-1 align-middle"><Badge tone="neutral">{line.role}</Badge></span>
          {line.status !== "both" && <span className="sr-only">({badge})</span>}
          <span className="break-words whitespace-pre-wrap" title={line.content.length > 400 ? line.content : undefined}>{oneLine(line.content, 400)}</span>
        </div>
      ) : (
        <p className="text-xs text-zinc-600 italic dark:text-zinc-400">{side === "Sent" ? "not sent by the agent" : "not kept by the profile"}</p>
      )}
    </div>
  );
}
