"use client";
import { useEffect, useState } from "react";
import { useFacets } from "@/client/hooks/conversations";
import { useDebouncedValue } from "@/client/ui/use-debounced-value";
import {
  INCIDENT_KINDS,
  INCIDENT_SEVERITIES,
  INCIDENT_STATUSES,
  KIND_HINT,
  KIND_LABEL,
  STATUS_LABEL,
  type IncidentFilters,
  type IncidentKind,
  type IncidentSeverity,
  type IncidentStatus,
} from "@/client/ui/incident-model";

const fieldCls =
  "h-9 w-full min-w-0 rounded-md border border-zinc-300 bg-white px-2.5 text-sm text-zinc-800 shadow-xs dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100";
const labelCls = "mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400";

/** Kind, status, severity, user, app and conversation: each a labelled native control (keyboard and screen readers as usual). */
export function IncidentFiltersBar({ filters, onChange }: { filters: IncidentFilters; onChange: (patch: Partial<IncidentFilters>) => void }) {
  const facets = useFacets();
  // The conversation id is typed: the list follows once typing pauses.
  const [conversation, setConversation] = useState(filters.conversation_id);
  const settled = useDebouncedValue(conversation.trim(), 300);
  // Only a settled edit of the field writes the filter; a reset from outside (Clear) rewrites the
  // field. Each effect runs on its own change alone, so neither undoes the other.
  useEffect(() => {
    if (settled !== filters.conversation_id) onChange({ conversation_id: settled });
  }, [settled]);
  useEffect(() => {
    if (filters.conversation_id !== conversation.trim()) setConversation(filters.conversation_id);
  }, [filters.conversation_id]);

  return (
    <div className="grid grid-cols-2 gap-x-3 gap-y-2 sm:grid-cols-3 lg:grid-cols-6" data-testid="incident-filters">
      <div>
        <label htmlFor="incident-kind" className={labelCls}>
          Kind
        </label>
        <select id="incident-kind" className={fieldCls} value={filters.kind} onChange={(e) => onChange({ kind: e.target.value as IncidentKind | "" })}>
          <option value="">Every kind</option>
          {INCIDENT_KINDS.map((k) => (
            <option key={k} value={k} title={KIND_HINT[k]}>
              {KIND_LABEL[k]}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="incident-status" className={labelCls}>
          Status
        </label>
        <select id="incident-status" className={fieldCls} value={filters.status} onChange={(e) => onChange({ status: e.target.value as IncidentStatus | "all" })}>
          {INCIDENT_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABEL[s]}
            </option>
          ))}
          <option value="all">Any status</option>
        </select>
      </div>
      <div>
        <label htmlFor="incident-severity" className={labelCls}>
          Severity
        </label>
        <select id="incident-severity" className={fieldCls} value={filters.severity} onChange={(e) => onChange({ severity: e.target.value as IncidentSeverity | "" })}>
          <option value="">Any severity</option>
          {INCIDENT_SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s[0].toUpperCase() + s.slice(1)}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="incident-user" className={labelCls}>
          User
        </label>
        <select id="incident-user" className={fieldCls} value={filters.user_id} onChange={(e) => onChange({ user_id: e.target.value })}>
          <option value="">Every user</option>
          {/* A user named by the URL stays choosable before (or without) the facets. */}
          {[...new Set([...(filters.user_id ? [filters.user_id] : []), ...(facets.data?.users ?? [])])].map((u) => (
            <option key={u} value={u}>
              {u}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="incident-app" className={labelCls}>
          App
        </label>
        <select id="incident-app" className={fieldCls} value={filters.app_id} onChange={(e) => onChange({ app_id: e.target.value })}>
          <option value="">Every app</option>
          {[...new Set([...(filters.app_id ? [filters.app_id] : []), ...(facets.data?.apps ?? [])])].map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="incident-conversation" className={labelCls}>
          Conversation id
        </label>
        <input
          id="incident-conversation"
          type="search"
          spellCheck={false}
          autoComplete="off"
          placeholder="Any conversation"
          className={`${fieldCls} font-mono text-xs`}
          value={conversation}
          onChange={(e) => setConversation(e.target.value)}
        />
      </div>
    </div>
  );
}
