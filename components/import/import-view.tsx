"use client";
import { WriteButton } from "@/components/ui/write-button";
import Link from "next/link";
import { useEffect, useRef, useState, type DragEvent } from "react";
import type { ImportCreate, ImportJob } from "@/client/api-types";
import { isRunning, useCancelImport, useDifyApps, useImportJob, useStartImport, useUploadImport, type UploadFormat } from "@/client/hooks/imports";
import { Badge } from "@/components/ui/badge";
import { SegmentedControl } from "@/components/ui/segmented-control";
import { ErrorBox, Spinner } from "@/components/ui/states";
import { JobCounts, JobProblems, ProgressBar } from "./job-summary";
import { RecentImports } from "./recent-imports";

type SourceKind = "file" | "dify database";
type FileFormat = "" | UploadFormat;
/** The file itself: sent as its bytes (POST /imports/upload), so zips, SQLite files and exports of hundreds of MB work. */
type Picked = { name: string; size: number; file: Blob };

const FORMAT_LABELS: Record<FileFormat, string> = {
  "": "Detect from the file",
  chatgpt: "ChatGPT data export (zip or conversations.json)",
  claude: "Claude.ai data export (zip or conversations.json)",
  letta: "Letta agent file (.af)",
  "openai-agents": "OpenAI Agents SDK session database (SQLite)",
  "memory-dir": "Memory folder as zip (/memories, Claude Code MEMORY.md)",
  agentscope: "AgentScope workspace (zip)",
  langgraph: "LangGraph store table (SQL dump)",
  "dify-api": "Dify Service API JSON",
  mem0: "Mem0 export (get_all, history)",
  openai: "OpenAI chat (JSON or JSONL)",
};

/** The /import page: choose a source, preview it with a dry run, run it with progress, read the summary. */
export function ImportView() {
  const [kind, setKind] = useState<SourceKind>("file");
  const [file, setFile] = useState<Picked | null>(null);
  const [format, setFormat] = useState<FileFormat>("");
  const [appId, setAppId] = useState("");
  const [userFrom, setUserFrom] = useState("");
  const [difyApp, setDifyApp] = useState("");
  const [previewId, setPreviewId] = useState<string | null>(null);
  const [runId, setRunId] = useState<string | null>(null);
  const startDb = useStartImport();
  const startFile = useUploadImport();
  const start = kind === "file" ? startFile : startDb;
  const preview = useImportJob(previewId);
  const run = useImportJob(runId);

  const request = (dryRun: boolean): Partial<ImportCreate> | null => {
    const common = { dry_run: dryRun, ...(appId.trim() ? { app_id: appId.trim() } : {}) };
    return difyApp ? { ...common, format: "dify-db", dify_app_id: difyApp } : null;
  };
  const ready = kind === "file" ? !!file : request(true) !== null;

  const reset = () => {
    setPreviewId(null);
    setRunId(null);
    startDb.reset();
    startFile.reset();
  };

  const begin = (dryRun: boolean): Promise<ImportJob | null> => {
    if (kind === "file") {
      if (!file) return Promise.resolve(null);
      return startFile
        .mutateAsync({
          file: file.file,
          dry_run: dryRun,
          file_name: file.name,
          ...(format ? { format } : {}),
          ...(appId.trim() ? { app_id: appId.trim() } : {}),
          ...(format === "langgraph" && userFrom !== "" ? { namespace_user_index: Number(userFrom) } : {}),
        })
        .catch(() => null);
    }
    const body = request(dryRun);
    return body ? startDb.mutateAsync(body).catch(() => null) : Promise.resolve(null);
  };
  const doPreview = async () => {
    setRunId(null);
    const job = await begin(true);
    if (job) setPreviewId(job.id);
  };
  const doRun = async () => {
    const job = await begin(false);
    if (job) setRunId(job.id);
  };

  const busy = start.isPending || isRunning(preview.data) || isRunning(run.data);

  return (
    <main className="mx-auto w-full max-w-4xl space-y-6 px-4 py-6 sm:px-6">
      <header>
        <h1 className="text-xl font-semibold tracking-tight">Import</h1>
        <p className="mt-1 max-w-2xl text-sm text-zinc-600 dark:text-zinc-400">
          Bring in conversations and memories from ChatGPT and Claude.ai exports, Letta agent files, OpenAI Agents SDK sessions, memory folders
          (Anthropic&apos;s memory tool, Claude Code), AgentScope workspaces, Dify (a Service API export or its database), Mem0, or OpenAI-format chat logs. Preview first: a dry run
          shows what would change. Each conversation is imported whole or not at all, and running an import again duplicates nothing.
        </p>
      </header>

      <section aria-labelledby="source-h" className="space-y-4 rounded-xl border border-zinc-200 p-4 dark:border-zinc-800">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="source-h" className="text-sm font-semibold">
            1. Source
          </h2>
          <SegmentedControl
            label="Source"
            options={["file", "dify database"] as const}
            value={kind}
            onChange={(k) => {
              setKind(k);
              reset();
            }}
            testIdPrefix="source-"
          />
        </div>
        {kind === "file" ? (
          <FilePicker
            file={file}
            onFile={(f) => {
              setFile(f);
              reset();
            }}
          />
        ) : (
          <DifyAppPicker
            value={difyApp}
            onChange={(id) => {
              setDifyApp(id);
              reset();
            }}
          />
        )}
        <div className="grid gap-3 sm:grid-cols-2">
          {kind === "file" && (
            <label className="block text-sm">
              <span className="mb-1 block font-medium">Format</span>
              <select
                value={format}
                onChange={(e) => {
                  setFormat(e.target.value as FileFormat);
                  reset();
                }}
                className="h-9 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
              >
                {(Object.keys(FORMAT_LABELS) as FileFormat[]).map((f) => (
                  <option key={f} value={f}>
                    {FORMAT_LABELS[f]}
                  </option>
                ))}
              </select>
            </label>
          )}
          {kind === "file" && format === "langgraph" && (
            <label className="block text-sm">
              <span className="mb-1 block font-medium">User from namespace part</span>
              <select
                value={userFrom}
                onChange={(e) => {
                  setUserFrom(e.target.value);
                  reset();
                }}
                data-testid="user-from"
                className="h-9 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
              >
                <option value="">the last (default: LangMem&apos;s (&quot;memories&quot;, user_id))</option>
                {[0, 1, 2, 3].map((i) => (
                  <option key={i} value={String(i)}>
                    namespace[{i}]
                  </option>
                ))}
              </select>
            </label>
          )}
          <label className="block text-sm">
            <span className="mb-1 block font-medium">App id in Memscope (optional)</span>
            <input
              value={appId}
              onChange={(e) => setAppId(e.target.value)}
              placeholder={kind === "file" ? "dify, openai… (by source)" : "the Dify app's id"}
              className="h-9 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
            />
          </label>
        </div>
      </section>

      <section aria-labelledby="preview-h" className="space-y-4 rounded-xl border border-zinc-200 p-4 dark:border-zinc-800">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="preview-h" className="text-sm font-semibold">
            2. Preview
          </h2>
          <WriteButton onClick={doPreview} disabled={!ready || busy} data-testid="preview-button">
            {start.isPending && !previewId ? <Spinner /> : null}
            Preview (dry run)
          </WriteButton>
        </div>
        {start.isError && <ErrorBox title="The import was refused" error={start.error} />}
        {!previewId && !start.isError && (
          <p className="text-sm text-zinc-500 dark:text-zinc-400">{ready ? "Run a dry run to see what would change. Nothing is written." : "Choose a source first."}</p>
        )}
        {preview.data && <JobPanel job={preview.data} />}
      </section>

      <section aria-labelledby="run-h" className="space-y-4 rounded-xl border border-zinc-200 p-4 dark:border-zinc-800">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="run-h" className="text-sm font-semibold">
            3. Import
          </h2>
          <WriteButton variant="primary" onClick={doRun} disabled={!ready || busy || preview.data?.status !== "done"} data-testid="run-button">
            Import
          </WriteButton>
        </div>
        {!runId && <p className="text-sm text-zinc-500 dark:text-zinc-400">{preview.data?.status === "done" ? "Ready: the preview above is what will be written." : "Preview first."}</p>}
        {run.data && (
          <>
            <JobPanel job={run.data} />
            {run.data.status === "done" && (
              <p className="flex flex-wrap gap-3 text-sm">
                {run.data.counts.conversations + run.data.counts.skipped > 0 && (
                  <Link className="font-medium text-indigo-700 hover:underline dark:text-indigo-400" href="/conversations">
                    Open conversations
                  </Link>
                )}
                {run.data.counts.memories > 0 && (
                  <Link className="font-medium text-indigo-700 hover:underline dark:text-indigo-400" href="/memories">
                    Open memories
                  </Link>
                )}
              </p>
            )}
          </>
        )}
        {run.isError && <ErrorBox error={run.error} />}
      </section>

      <RecentImports />
    </main>
  );
}

function JobPanel({ job }: { job: ImportJob }) {
  const running = isRunning(job);
  const cancel = useCancelImport();
  return (
    <div className="space-y-3" data-testid={job.dry_run ? "preview-panel" : "run-panel"} aria-live="polite">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        {job.dry_run ? <Badge tone="accent">dry run: nothing written</Badge> : <Badge tone="green">written</Badge>}
        <Badge tone={job.status === "failed" ? "red" : running ? "amber" : "neutral"}>{running ? "running" : job.status}</Badge>
        <span className="truncate text-zinc-600 dark:text-zinc-400">
          {job.label} · {job.format}
        </span>
        {running && (
          // Stops between two transactions: what was written stays, and the counts below say what.
          <WriteButton onClick={() => cancel.mutate(job.id)} disabled={cancel.isPending} data-testid="cancel-button" className="ml-auto">
            {cancel.isPending ? <Spinner /> : null}
            Cancel
          </WriteButton>
        )}
      </div>
      {cancel.isError && <ErrorBox title="The import could not be cancelled" error={cancel.error} />}
      {job.status === "cancelled" && (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{job.dry_run ? "Cancelled." : "Cancelled: the records counted below were written; the rest were not."}</p>
      )}
      <ProgressBar job={job} />
      <JobCounts job={job} />
      <JobProblems job={job} />
    </div>
  );
}

function FilePicker({ file, onFile }: { file: Picked | null; onFile: (f: Picked | null) => void }) {
  const [over, setOver] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const read = async (f: File | undefined) => {
    if (!f) return;
    setError(null);
    if (f.size > 2 * 1024 * 1024 * 1024) {
      setError(`${f.name} is over 2 GiB; split it or use the CLI per part.`);
      return;
    }
    onFile({ name: f.name, size: f.size, file: f });
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    void read(e.dataTransfer.files[0]);
  };
  return (
    <div>
      <label
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        className={`flex cursor-pointer flex-col items-center justify-center gap-1 rounded-lg border-2 border-dashed px-4 py-8 text-center text-sm transition-colors focus-within:ring-2 focus-within:ring-indigo-500 ${
          over ? "border-indigo-500 bg-indigo-50 dark:bg-indigo-950/30" : "border-zinc-300 hover:border-zinc-400 dark:border-zinc-700"
        }`}
        data-testid="drop-zone"
      >
        <span className="font-medium">{file ? file.name : "Drop a file here, or choose one"}</span>
        <span className="text-xs text-zinc-500 dark:text-zinc-400">
          {file
            ? `${(file.size / 1024).toFixed(1)} KiB · choose another to replace it`
            : "An export (.zip, .json, .jsonl), a Letta .af, a session .db, or a folder as .zip"}
        </span>
        <input
          ref={input}
          type="file"
          accept=".json,.jsonl,.zip,.af,.db,.sqlite,.sqlite3,.md,application/json,application/zip"
          className="sr-only"
          aria-label="Import file"
          onChange={(e) => void read(e.target.files?.[0])}
        />
      </label>
      {error && (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}

function DifyAppPicker({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const apps = useDifyApps(true);
  if (apps.isPending) {
    return (
      <p className="flex items-center gap-2 text-sm text-zinc-500">
        <Spinner /> Reading Dify&apos;s apps…
      </p>
    );
  }
  if (apps.isError) return <ErrorBox error={apps.error} onRetry={() => void apps.refetch()} />;
  const d = apps.data;
  if (!d.configured) {
    return (
      <p className="rounded-lg bg-zinc-50 p-3 text-sm text-zinc-700 dark:bg-zinc-900 dark:text-zinc-300" data-testid="dify-not-configured">
        No Dify database is configured. Set <code className="font-mono text-xs">MEMSCOPE_DIFY_DATABASE_URL</code> to a Dify PostgreSQL URL (a read-only user is
        enough) and restart Memscope.
      </p>
    );
  }
  if (d.error) return <ErrorBox title="Dify's database could not be read" error={d.error} onRetry={() => void apps.refetch()} />;
  if (!d.data.length) return <p className="text-sm text-zinc-500">Dify&apos;s database has no apps.</p>;
  return (
    <fieldset>
      <legend className="mb-2 text-sm font-medium">Dify app</legend>
      <div className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
        {d.data.map((a) => (
          <label key={a.id} className="flex cursor-pointer items-center gap-3 px-3 py-2 text-sm hover:bg-zinc-50 dark:hover:bg-zinc-900">
            <input type="radio" name="dify-app" value={a.id} checked={value === a.id} onChange={() => onChange(a.id)} />
            <span className="min-w-0 flex-1">
              <span className="block truncate font-medium">{a.name}</span>
              <span className="block text-xs text-zinc-500 dark:text-zinc-400">
                {a.mode} · {a.conversations} conversations · {a.messages} messages ·{" "}
                {a.last_import_at ? `imported up to ${new Date(a.last_import_at).toLocaleString()}; only newer messages come next` : "not imported yet"}
              </span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
