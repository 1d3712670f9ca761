"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { DifyApps, ImportCreate, ImportJob } from "@/lib/imports/schemas";
import { api } from "./api-client";

// The /import page's data: jobs (polled while they run), the Dify database's apps, and
// starting an import or a dry run.

export const ik = {
  all: ["imports"] as const,
  job: (id: string) => ["imports", "job", id] as const,
  jobs: ["imports", "jobs"] as const,
  difyApps: ["imports", "dify-apps"] as const,
};

export const isRunning = (j: ImportJob | undefined) => j?.status === "running" || j?.status === "pending";

export function useImportJob(id: string | null) {
  return useQuery({
    queryKey: ik.job(id ?? ""),
    queryFn: ({ signal }) => api.get<ImportJob>(`/imports/${id}`, undefined, signal),
    enabled: !!id,
    // Progress: poll while the job runs, then stop.
    refetchInterval: (q) => (isRunning(q.state.data) ? 250 : false),
    staleTime: 0,
  });
}

export function useImportJobs() {
  return useQuery({
    queryKey: ik.jobs,
    queryFn: ({ signal }) => api.get<{ data: ImportJob[] }>("/imports", undefined, signal).then((r) => r.data),
    // A listed job still running (a preview, a run, one started from the CLI or another
    // tab) is polled until it ends, so the list shows how each one finished.
    refetchInterval: (q) => (q.state.data?.some(isRunning) ? 1000 : false),
  });
}

export function useDifyApps(enabled: boolean) {
  return useQuery({
    queryKey: ik.difyApps,
    queryFn: ({ signal }) => api.get<DifyApps>("/imports/dify-apps", undefined, signal),
    enabled,
  });
}

export function useStartImport() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Partial<ImportCreate>) => api.post<ImportJob>("/imports", body),
    onSuccess: (job) => {
      qc.setQueryData(ik.job(job.id), job);
      void qc.invalidateQueries({ queryKey: ik.jobs });
    },
  });
}
