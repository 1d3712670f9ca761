"use client";
// Memory evals (/evals): sets of questions with known right answers, runs and comparisons.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Answer, Body } from "../api-types";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

export type EvalSet = Answer<"/evals/sets", "get">["data"][number];
export type EvalRun = Answer<"/evals/sets/{id}/runs", "get">["data"][number];
export type EvalRunCase = Answer<"/evals/runs/{id}/cases", "get">["data"][number];
export type EvalRunCaseDetail = Answer<"/evals/runs/{id}/cases/{case_id}", "get">;
export type EvalComparison = Answer<"/evals/runs/{id}/compare", "get">;
export type EvalCaseInput = Body<"/evals/sets/{id}/cases", "post">["cases"][number];
export type EvalConfig = NonNullable<Body<"/evals/sets/{id}/runs", "post">["config"]>;

export function useEvalSets() {
  return useQuery({ queryKey: keys.evals.sets, queryFn: ({ signal }) => ok(api.GET("/evals/sets", { signal })) });
}

export function useEvalRuns(setId: string | null) {
  return useQuery({
    queryKey: keys.evals.runs(setId ?? ""),
    enabled: !!setId,
    queryFn: ({ signal }) => ok(api.GET("/evals/sets/{id}/runs", { params: { path: { id: setId! } }, signal })),
  });
}

export function useEvalCases(setId: string | null) {
  return useQuery({
    queryKey: keys.evals.cases(setId ?? ""),
    enabled: !!setId,
    queryFn: ({ signal }) => ok(api.GET("/evals/sets/{id}/cases", { params: { path: { id: setId! } }, signal })),
  });
}

export function useEvalRunCases(runId: string | null) {
  return useQuery({
    queryKey: keys.evals.runCases(runId ?? ""),
    enabled: !!runId,
    // A run's results never change.
    staleTime: Infinity,
    queryFn: ({ signal }) => ok(api.GET("/evals/runs/{id}/cases", { params: { path: { id: runId! } }, signal })),
  });
}

export function useEvalRunCase(runId: string | null, caseId: string | null) {
  return useQuery({
    queryKey: keys.evals.runCase(runId ?? "", caseId ?? ""),
    enabled: !!runId && !!caseId,
    staleTime: Infinity,
    queryFn: ({ signal }) => ok(api.GET("/evals/runs/{id}/cases/{case_id}", { params: { path: { id: runId!, case_id: caseId! } }, signal })),
  });
}

export function useEvalComparison(runId: string | null, baseId: string | null) {
  return useQuery({
    queryKey: keys.evals.compare(runId ?? "", baseId ?? ""),
    enabled: !!runId && !!baseId && runId !== baseId,
    staleTime: Infinity,
    queryFn: ({ signal }) => ok(api.GET("/evals/runs/{id}/compare", { params: { path: { id: runId! }, query: { base: baseId! } }, signal })),
  });
}

export function useCreateEvalSet() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => ok(api.POST("/evals/sets", { body: { name } }), { detailsApart: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.evals.sets }),
  });
}

/** Adds one case to the set named `setName` (made first when the project has none of that name). */
export function useSaveEvalCase() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (v: { setName: string; testCase: EvalCaseInput }) => {
      const found = await ok(api.GET("/evals/sets", { params: { query: { name: v.setName } } }));
      const set = found.data[0] ?? (await ok(api.POST("/evals/sets", { body: { name: v.setName } }), { detailsApart: true }));
      await ok(api.POST("/evals/sets/{id}/cases", { params: { path: { id: set.id } }, body: { cases: [v.testCase] } }), { detailsApart: true });
      return set;
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.evals.all }),
  });
}

export function useRunEval() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { setId: string; config: EvalConfig; label?: string }) =>
      ok(api.POST("/evals/sets/{id}/runs", { params: { path: { id: v.setId } }, body: { config: v.config, ...(v.label ? { label: v.label } : {}) } })),
    onSuccess: (_run, v) => {
      void qc.invalidateQueries({ queryKey: keys.evals.runs(v.setId) });
      void qc.invalidateQueries({ queryKey: keys.evals.sets });
    },
  });
}
