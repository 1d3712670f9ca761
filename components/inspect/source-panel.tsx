"use client";
import { useId, useMemo, useRef } from "react";
import { useUserConversations } from "@/client/hooks/conversations";
import { useThreadTurns } from "@/client/hooks/turns";
import { useMemoryUsers } from "@/client/hooks/memories";
import { parseMessages, SAMPLE_TEMPORARY, sampleMessages, type InspectSource, type MemoryFormat, type SourceTab } from "@/client/ui/inspect-model";
import { formatInt, oneLine, plural } from "@/client/ui/format";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/states";
import { FieldError, inputCls, labelCls } from "./strategy-form";
import { MemoryTypeToggles } from "@/components/ui/memory-type-toggles";

const TABS: { key: SourceTab; label: string }[] = [
  { key: "stored", label: "Stored conversation" },
  { key: "paste", label: "Paste messages" },
];

const textareaCls =
  "w-full resize-y rounded-md border border-zinc-300 bg-white px-2.5 py-2 text-sm shadow-xs aria-[invalid=true]:border-red-500 aria-[invalid=true]:ring-1 aria-[invalid=true]:ring-red-500 dark:border-zinc-700 dark:bg-zinc-950";

/** Where the history comes from: a stored conversation (POST /context) or a pasted array (/window, or /context when a user is picked). */
export function SourcePanel({ src, onChange, errors }: { src: InspectSource; onChange: (patch: Partial<InspectSource>) => void; errors: Record<string, string> }) {
  const id = useId();
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKey = (e: React.KeyboardEvent, i: number) => {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    const next = (i + 1) % TABS.length;
    onChange({ tab: TABS[next].key });
    tabRefs.current[next]?.focus();
  };

  return (
    <div className="flex flex-col gap-3">
      <div role="tablist" aria-label="Source" className="grid grid-cols-2 gap-1 rounded-lg bg-zinc-100 p-1 dark:bg-zinc-800/70">
        {TABS.map((t, i) => {
          const on = src.tab === t.key;
          return (
            <button
              key={t.key}
              ref={(el) => {
                tabRefs.current[i] = el;
              }}
              role="tab"
              type="button"
              aria-selected={on}
              aria-controls={`${id}-panel`}
              tabIndex={on ? 0 : -1}
              data-testid={`inspect-source-tab-${t.key}`}
              onClick={() => onChange({ tab: t.key })}
              onKeyDown={(e) => onKey(e, i)}
              className={`rounded-md px-2 py-1.5 text-xs font-medium transition-colors ${
                on ? "bg-white text-zinc-900 shadow-sm dark:bg-zinc-950 dark:text-zinc-50" : "text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100"
              }`}
            >
              {t.label}
            </button>
          );
        })}
      </div>

      <div id={`${id}-panel`} role="tabpanel" className="flex flex-col gap-3">
        {src.tab === "stored" ? <StoredSource src={src} onChange={onChange} errors={errors} /> : <PasteSource src={src} onChange={onChange} errors={errors} />}
      </div>
    </div>
  );
}

function UserPicker({ src, onChange, errors, optional }: { src: InspectSource; onChange: (p: Partial<InspectSource>) => void; errors: Record<string, string>; optional?: boolean }) {
  const id = useId();
  const users = useMemoryUsers();
  const err = errors["user_id"];
  return (
    <label className={labelCls}>
      <span className="flex items-center gap-1.5">
        {optional ? "Inject memories of user (optional)" : "User"}
        {users.isFetching && <Spinner className="size-3 text-zinc-400" />}
      </span>
      <input
        list={`${id}-users`}
        value={src.user}
        onChange={(e) => onChange({ user: e.target.value, conversation: "", leaf: "" })}
        placeholder={users.data?.length ? `Choose one of ${users.data.length} users, or type an id` : "Type a user id"}
        data-testid="inspect-user"
        aria-invalid={err ? true : undefined}
        aria-describedby={err ? `${id}-err` : undefined}
        autoComplete="off"
        spellCheck={false}
        className={inputCls}
      />
      <datalist id={`${id}-users`}>
        {users.data?.map((u) => (
          <option key={u.user_id} value={u.user_id}>
            {u.active} active memories
          </option>
        ))}
      </datalist>
      <FieldError id={`${id}-err`} message={err ?? (users.isError ? `Could not load users: ${users.error.message}` : undefined)} />
    </label>
  );
}

function StoredSource({ src, onChange, errors }: { src: InspectSource; onChange: (p: Partial<InspectSource>) => void; errors: Record<string, string> }) {
  const id = useId();
  const convs = useUserConversations(src.user.trim());
  const turns = useThreadTurns(src.conversation);
  const convErr = errors["conversation_id"];
  const leafErr = errors["leaf_message_id"];
  const current = convs.data?.find((c) => c.id === src.conversation);
  return (
    <>
      <UserPicker src={src} onChange={onChange} errors={errors} />
      <label className={labelCls}>
        <span className="flex items-center gap-1.5">
          Conversation
          {convs.isFetching && <Spinner className="size-3 text-zinc-400" />}
        </span>
        <select
          value={src.conversation}
          onChange={(e) => onChange({ conversation: e.target.value, leaf: "" })}
          disabled={!src.user.trim()}
          data-testid="inspect-conversation"
          aria-invalid={convErr ? true : undefined}
          className={inputCls}
        >
          <option value="">{!src.user.trim() ? "Choose a user above to list their conversations" : convs.data?.length === 0 ? "No conversations — query only" : "None — query and memories only"}</option>
          {convs.data?.map((c) => (
            <option key={c.id} value={c.id}>
              {oneLine(c.name || c.id, 48)} · {plural(c.turn_count, "turn")}
            </option>
          ))}
          {src.conversation && !current && !convs.isPending && <option value={src.conversation}>{src.conversation}</option>}
        </select>
        <FieldError id={`${id}-conv`} message={convErr ?? (convs.isError ? convs.error.message : undefined)} />
      </label>
      {src.conversation && (
        <label className={labelCls}>
          <span className="flex items-center gap-1.5">
            Leaf turn
            {turns.isFetching && <Spinner className="size-3 text-zinc-400" />}
          </span>
          <select value={src.leaf} onChange={(e) => onChange({ leaf: e.target.value })} data-testid="inspect-leaf" aria-invalid={leafErr ? true : undefined} className={inputCls}>
            <option value="">Newest turn (current thread{turns.data ? `, ${plural(turns.data.current.length, "turn")}` : ""})</option>
            {turns.data && (
              <optgroup label="Current thread">
                {turns.data.current.map((t) => (
                  <option key={t.id} value={t.id}>
                    #{t.n} · {oneLine(t.query, 60)}
                  </option>
                ))}
              </optgroup>
            )}
            {!!turns.data?.other.length && (
              <optgroup label="Other branches">
                {turns.data.other.map((t) => (
                  <option key={t.id} value={t.id}>
                    #{t.n} · {oneLine(t.query, 60)}
                  </option>
                ))}
              </optgroup>
            )}
          </select>
          <FieldError id={`${id}-leaf`} message={leafErr ?? (turns.isError ? turns.error.message : undefined)} />
        </label>
      )}
      <QueryAndSystem src={src} onChange={onChange} errors={errors} required />
      <MemoryOptions src={src} onChange={onChange} errors={errors} />
      <TemporaryMessages src={src} onChange={onChange} errors={errors} />
    </>
  );
}

function QueryAndSystem({ src, onChange, errors, required }: { src: InspectSource; onChange: (p: Partial<InspectSource>) => void; errors: Record<string, string>; required?: boolean }) {
  const id = useId();
  return (
    <>
      <label className={labelCls}>
        {required ? "Query" : "Query (needed to retrieve memories)"}
        <textarea
          rows={2}
          value={src.query}
          onChange={(e) => onChange({ query: e.target.value })}
          placeholder="The question being asked, e.g. what's my budget?"
          data-testid="inspect-query"
          aria-invalid={errors["query"] ? true : undefined}
          aria-describedby={errors["query"] ? `${id}-q` : undefined}
          className={textareaCls}
        />
        <FieldError id={`${id}-q`} message={errors["query"]} />
      </label>
      <label className={labelCls}>
        System prompt
        <textarea
          rows={2}
          value={src.systemPrompt}
          onChange={(e) => onChange({ systemPrompt: e.target.value })}
          placeholder="Optional, e.g. You are a helpful travel assistant."
          data-testid="inspect-system-prompt"
          aria-invalid={errors["system_prompt"] ? true : undefined}
          className={textareaCls}
        />
        <FieldError id={`${id}-sp`} message={errors["system_prompt"]} />
      </label>
    </>
  );
}

function MemoryOptions({ src, onChange, errors }: { src: InspectSource; onChange: (p: Partial<InspectSource>) => void; errors: Record<string, string> }) {
  const m = src.memory;
  const set = (p: Partial<InspectSource["memory"]>) => onChange({ memory: { ...m, ...p } });
  const memErr = Object.entries(errors).find(([k]) => k.startsWith("memory"));
  return (
    <details className="group rounded-md border border-zinc-200 dark:border-zinc-800" open={!!memErr || undefined}>
      <summary className="flex cursor-pointer list-none items-center gap-2 px-2.5 py-1.5 text-xs font-medium text-zinc-700 select-none dark:text-zinc-300">
        <span aria-hidden className="text-zinc-400 transition-transform group-open:rotate-90">▸</span>
        <span className="whitespace-nowrap">Long-term memory</span>
        <span className="ml-auto truncate font-normal text-zinc-500">{m.enabled ? `k ${m.k} · ${m.format}${m.dryRun ? " · dry run" : ""}` : "off"}</span>
      </summary>
      <div className="flex flex-col gap-2.5 border-t border-zinc-200 px-2.5 py-2.5 dark:border-zinc-800">
        <label className="flex items-center gap-2 text-xs text-zinc-700 dark:text-zinc-300">
          <input type="checkbox" checked={m.enabled} onChange={(e) => set({ enabled: e.target.checked })} className="size-3.5 accent-indigo-600" data-testid="memory-enabled" />
          Inject retrieved memories
        </label>
        <div className="grid grid-cols-2 gap-2.5">
          <label className={labelCls}>
            k
            <input type="number" min={1} max={100} value={Number.isNaN(m.k) ? "" : m.k} onChange={(e) => set({ k: e.target.value === "" ? NaN : Number(e.target.value) })} data-testid="memory-k" className={inputCls} aria-invalid={errors["memory.k"] ? true : undefined} />
            <FieldError id="mem-k" message={errors["memory.k"]} />
          </label>
          <label className={labelCls}>
            Min score
            <input type="number" step={0.05} value={m.minScore} placeholder="none" onChange={(e) => set({ minScore: e.target.value })} className={inputCls} aria-invalid={errors["memory.min_score"] ? true : undefined} />
            <FieldError id="mem-min" message={errors["memory.min_score"]} />
          </label>
        </div>
        <label className={labelCls}>
          Format
          <select value={m.format} onChange={(e) => set({ format: e.target.value as MemoryFormat })} data-testid="memory-format" className={inputCls}>
            <option value="user_memory"># USER MEMORY sections</option>
            <option value="xml_block">&lt;long_term_memory&gt; block</option>
          </select>
        </label>
        <div className="flex flex-wrap gap-1.5" role="group" aria-label="Memory types">
          <MemoryTypeToggles value={m.types} onChange={(types) => set({ types })} />
          <span className="self-center text-[11px] text-zinc-400">{m.types.length ? "" : "all types"}</span>
        </div>
        <label className="flex items-start gap-2 text-xs text-zinc-600 dark:text-zinc-400">
          <input type="checkbox" checked={m.dryRun} onChange={(e) => set({ dryRun: e.target.checked })} className="mt-0.5 size-3.5 accent-indigo-600" />
          <span>
            <span className="font-medium text-zinc-800 dark:text-zinc-200">Dry run</span> — don&apos;t log this retrieval as an access
          </span>
        </label>
      </div>
    </details>
  );
}

function TemporaryMessages({ src, onChange, errors }: { src: InspectSource; onChange: (p: Partial<InspectSource>) => void; errors: Record<string, string> }) {
  const parsed = useMemo(() => parseMessages(src.temporaryText, "temporary_messages", { allowEmpty: true }), [src.temporaryText]);
  const apiErr = Object.entries(errors).find(([k]) => k.startsWith("temporary_messages"));
  const err = parsed.issue ? `${parsed.issue.field}: ${parsed.issue.message}` : apiErr ? `${apiErr[0]}: ${apiErr[1]}` : undefined;
  return (
    <details className="group rounded-md border border-zinc-200 dark:border-zinc-800" open={!!err || !!src.temporaryText.trim() || undefined}>
      <summary className="flex cursor-pointer list-none items-center gap-2 px-2.5 py-1.5 text-xs font-medium text-zinc-700 select-none dark:text-zinc-300">
        <span aria-hidden className="text-zinc-400 transition-transform group-open:rotate-90">▸</span>
        Temporary messages
        <span className="ml-auto font-normal text-zinc-500">{parsed.messages?.length ? `${parsed.messages.length} · used once` : "none"}</span>
      </summary>
      <div className="flex flex-col gap-1.5 border-t border-zinc-200 px-2.5 py-2.5 dark:border-zinc-800">
        <textarea
          rows={3}
          value={src.temporaryText}
          onChange={(e) => onChange({ temporaryText: e.target.value })}
          placeholder='[{"role": "user", "content": "…"}]'
          spellCheck={false}
          data-testid="inspect-temporary"
          aria-invalid={err ? true : undefined}
          className={`${textareaCls} font-mono text-[12px]`}
        />
        <div className="flex items-center gap-2">
          <FieldError id="tmp-err" message={err} />
          <button type="button" className="ml-auto text-[11px] font-medium text-indigo-600 hover:underline dark:text-indigo-400" onClick={() => onChange({ temporaryText: JSON.stringify(SAMPLE_TEMPORARY, null, 2) })}>
            Sample
          </button>
        </div>
      </div>
    </details>
  );
}

function PasteSource({ src, onChange, errors }: { src: InspectSource; onChange: (p: Partial<InspectSource>) => void; errors: Record<string, string> }) {
  const id = useId();
  const parsed = useMemo(() => (src.messagesText.trim() ? parseMessages(src.messagesText, "messages") : null), [src.messagesText]);
  const apiErr = Object.entries(errors).find(([k]) => k === "messages" || k.startsWith("messages["));
  const err = parsed?.issue ? `${parsed.issue.field}: ${parsed.issue.message}` : (errors["messages"] ?? (apiErr ? `${apiErr[0]}: ${apiErr[1]}` : undefined));
  const roles = parsed?.messages?.reduce<Record<string, number>>((acc, m) => ((acc[m.role] = (acc[m.role] ?? 0) + 1), acc), {});
  return (
    <>
      <div className={labelCls}>
        <div className="flex items-center gap-2">
          <label htmlFor={`${id}-msgs`}>Messages (JSON array, OpenAI shape accepted)</label>
          <Button size="sm" variant="ghost" className="ml-auto" data-testid="inspect-sample" onClick={() => onChange({ messagesText: JSON.stringify(sampleMessages(), null, 2) })}>
            Load sample
          </Button>
        </div>
        <textarea
          id={`${id}-msgs`}
          rows={12}
          value={src.messagesText}
          onChange={(e) => onChange({ messagesText: e.target.value })}
          placeholder={'[\n  {"role": "system", "content": "…"},\n  {"role": "user", "content": "…"}\n]'}
          spellCheck={false}
          data-testid="inspect-messages"
          aria-invalid={err ? true : undefined}
          aria-describedby={`${id}-msgs-status`}
          className={`${textareaCls} font-mono text-[12px] leading-snug`}
        />
        <div id={`${id}-msgs-status`} className="flex min-h-4 items-center gap-2 text-[11px]">
          {err ? (
            <FieldError id={`${id}-msgs-err`} message={err} />
          ) : parsed?.messages ? (
            <span className="text-emerald-700 dark:text-emerald-400" data-testid="messages-valid">
              ✓ {parsed.messages.length} messages
              {roles && <span className="text-zinc-500"> · {Object.entries(roles).map(([r, n]) => `${n} ${r}`).join(", ")}</span>}
            </span>
          ) : (
            <span className="text-zinc-500">Paste a conversation or load the sample (it has a tool call and its result).</span>
          )}
          {parsed?.messages && (
            <button type="button" className="ml-auto font-medium text-indigo-600 hover:underline dark:text-indigo-400" onClick={() => onChange({ messagesText: JSON.stringify(parsed.messages, null, 2) })}>
              Format
            </button>
          )}
        </div>
      </div>
      <TemporaryMessages src={src} onChange={onChange} errors={errors} />
      <details className="group rounded-md border border-zinc-200 dark:border-zinc-800" open={!!src.user || undefined}>
        <summary className="flex cursor-pointer list-none items-center gap-2 px-2.5 py-1.5 text-xs font-medium text-zinc-700 select-none dark:text-zinc-300">
          <span aria-hidden className="text-zinc-400 transition-transform group-open:rotate-90">▸</span>
          Inject long-term memories
          <span className="ml-auto font-normal text-zinc-500">{src.user && src.query.trim() ? "via /context" : "off · /window"}</span>
        </summary>
        <div className="flex flex-col gap-2.5 border-t border-zinc-200 px-2.5 py-2.5 dark:border-zinc-800">
          <p className="text-[11px] text-zinc-500 dark:text-zinc-400">With a user and a query the messages go through /context: system prompt, that user&apos;s memories, the history, then the query.</p>
          <UserPicker src={src} onChange={onChange} errors={errors} optional />
          <QueryAndSystem src={src} onChange={onChange} errors={errors} />
          {src.user && <MemoryOptions src={src} onChange={onChange} errors={errors} />}
        </div>
      </details>
    </>
  );
}
