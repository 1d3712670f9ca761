"use client";
// The /import page's data: jobs (polled while they run), the Dify database's apps, and
// starting an import or a dry run.
import { useEffect } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ImportCreate, ImportJob } from "../api-types";
import { keys } from "../query-keys";
import { api, ok, type paths } from "../transport";

export const isRunning = (j: ImportJob | undefined) => j?.status === "running" || j?.status === "pending";
const ended = (j: ImportJob | undefined) => j?.status === "done" || j?.status === "failed" || j?.status === "cancelled";

/**
 * One job, polled while it runs. When an import that writes ends, every list it may have
 * changed (conversations, memories, Dify cursors, recent jobs) refetches; when a dry run ends,
 * the recent jobs do.
 */
export function useImportJob(id: string | null) {
  const qc = useQueryClient();
  const job = useQuery({
    queryKey: keys.imports.job(id ?? ""),
    queryFn: ({ signal }) => ok(api.GET("/imports/{id}", { params: { path: { id: id! } }, signal })),
    enabled: !!id,
    // Progress: poll while the job runs, then stop.
    refetchInterval: (q) => (isRunning(q.state.data) ? 250 : false),
    staleTime: 0,
  });
  const done = ended(job.data);
  const dryRun = job.data?.dry_run;
  useEffect(() => {
    if (!done) return;
    if (dryRun) {
      void qc.invalidateQueries({ queryKey: keys.imports.jobs });
      return;
    }
    void qc.invalidateQueries({ queryKey: keys.imports.all });
    void qc.invalidateQueries({ queryKey: keys.conversations.all });
    void qc.invalidateQueries({ queryKey: keys.memories.all });
  }, [done, dryRun, qc]);
  return job;
}

export function useImportJobs() {
  return useQuery({
    queryKey: keys.imports.jobs,
    queryFn: ({ signal }) => ok(api.GET("/imports", { signal })).then((r) => r.data),
    // A listed job still running (a preview, a run, one started from the CLI or another
    // tab) is polled until it ends, so the list shows how each one finished.
    refetchInterval: (q) => (q.state.data?.some(isRunning) ? 1000 : false),
  });
}

export function useDifyApps(enabled: boolean) {
  return useQuery({
    queryKey: keys.imports.difyApps,
    queryFn: ({ signal }) => ok(api.GET("/imports/dify-apps", { signal })),
    enabled,
  });
}

export type UploadFormat = NonNullable<NonNullable<paths["/imports/upload"]["post"]["parameters"]["query"]>["format"]>;
export type UploadRequest = { file: Blob; dry_run: boolean; file_name: string; format?: UploadFormat; app_id?: string; namespace_user_index?: number };

/** A file import: the file's bytes are the body (zips, SQLite files, exports of hundreds of MB). */
export function useUploadImport() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ file, dry_run, ...query }: UploadRequest) =>
      ok(
        api.POST("/imports/upload", {
          params: { query: { ...query, dry_run: dry_run ? "true" : "false" } },
          body: file as unknown as string,
          bodySerializer: (b: unknown) => b as Blob,
          headers: { "content-type": "application/octet-stream" },
        }),
      ),
    onSuccess: (job) => {
      qc.setQueryData(keys.imports.job(job.id), job);
      void qc.invalidateQueries({ queryKey: keys.imports.jobs });
    },
  });
}

export function useStartImport() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Partial<ImportCreate>) => ok(api.POST("/imports", { body: body as ImportCreate })),
    onSuccess: (job) => {
      qc.setQueryData(keys.imports.job(job.id), job);
      void qc.invalidateQueries({ queryKey: keys.imports.jobs });
    },
  });
}

/** Stops a running import between two transactions; the answer is the job once stopped (what it wrote stays). */
export function useCancelImport() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => ok(api.POST("/imports/{id}/cancel", { params: { path: { id } } })),
    onSuccess: (job) => {
      qc.setQueryData(keys.imports.job(job.id), job);
      void qc.invalidateQueries({ queryKey: keys.imports.all });
    },
  });
}
