import { z } from "zod";
import {
  ZBenchmarkUploadQuery,
  ZCaseImport,
  ZCasesCreate,
  ZComparison,
  ZEvalCase,
  ZEvalRun,
  ZEvalSet,
  ZEvalSetCreate,
  ZImportSummary,
  ZRunCase,
  ZRunCaseDetail,
  ZRunCreate,
} from "../../evals/schemas";
import { contract, pathId } from "../contract";

// Memory evals (issue 23): sets of questions with known right answers, runs under a
// retrieval configuration, and comparisons of runs. A run reads memories without logging
// the retrieval or marking anything accessed; it stores its results, so it needs write.

const tag = "evals";
const ZSetParams = z.object({ id: pathId("Eval set") });
const ZRunParams = z.object({ id: pathId("Eval run") });

export const listEvalSets = contract({
  tag, method: "GET", path: "/evals/sets", scope: "memories:read",
  summary: "The project's eval sets with their case and run counts (name: the set of that name)",
  query: z.object({ name: z.string().trim().min(1).max(200).optional() }).strict(),
  response: z.object({ data: z.array(ZEvalSet) }), errors: [422],
});

export const createEvalSet = contract({
  tag, method: "POST", path: "/evals/sets", scope: "memories:write",
  summary: "Make an eval set (names are unique per project)",
  body: ZEvalSetCreate, bodyLimit: 16 * 1024, response: ZEvalSet, status: 201, errors: [409, 422],
});

export const getEvalSet = contract({
  tag, method: "GET", path: "/evals/sets/{id}", scope: "memories:read",
  summary: "An eval set",
  params: ZSetParams, response: ZEvalSet, errors: [404],
});

export const deleteEvalSet = contract({
  tag, method: "DELETE", path: "/evals/sets/{id}", scope: "memories:write",
  summary: "Delete an eval set with its cases and runs",
  params: ZSetParams, status: 204, errors: [404],
});

export const listEvalCases = contract({
  tag, method: "GET", path: "/evals/sets/{id}/cases", scope: "memories:read",
  summary: "A set's cases, oldest first",
  params: ZSetParams, response: z.object({ data: z.array(ZEvalCase) }), errors: [404],
});

export const createEvalCases = contract({
  tag, method: "POST", path: "/evals/sets/{id}/cases", scope: "memories:write",
  summary: "Add cases to a set (all or none; a case whose external_id the set holds is skipped)",
  params: ZSetParams, body: ZCasesCreate, bodyLimit: 4 * 1024 * 1024,
  response: z.object({ data: z.array(ZEvalCase), skipped: z.number().int() }), status: 201, errors: [404, 422],
});

export const deleteEvalCase = contract({
  tag, method: "DELETE", path: "/evals/sets/{id}/cases/{case_id}", scope: "memories:write",
  summary: "Delete a case (runs keep its results)",
  params: ZSetParams.extend({ case_id: pathId("Eval case") }), status: 204, errors: [404],
});

export const importEvalCases = contract({
  tag, method: "POST", path: "/evals/sets/{id}/import", scope: "memories:write",
  summary: "Import cases from JSONL or CSV, or a LongMemEval / LoCoMo file (its sessions, turns and memories too)",
  description:
    "JSONL and CSV add cases only. LongMemEval and LoCoMo files also write their sessions as conversations (with their dates), turns as messages, and memories with their source turn; each question becomes a case whose evidence is the turns the file marks (LongMemEval `has_answer`, LoCoMo `evidence`). The file is read record by record, twice: a bad record is a 422 naming it, and nothing of the file is written (all or nothing). Records already imported (by their ids) are skipped. References that name nothing (a LongMemEval answer_session_ids session not in the haystack, a LoCoMo evidence id no turn has) do not stop the import: each is listed in `defects` with its question, and a question left without evidence is imported tagged `unscorable`. `dry_run: true` reads the whole file and answers 200 with what it holds and every defect, bad records included, writing nothing. Files over the body limit go to POST /evals/sets/{id}/import/upload (`npm run eval -- --import FILE`). 409 chat_not_configured: extraction chat without a chat model; 502 provider_error: the chat model or the embedding endpoint failed (records written before stay).",
  params: ZSetParams, body: ZCaseImport, bodyLimit: 24 * 1024 * 1024, response: ZImportSummary, status: 201, alsoStatus: [200], errors: [404, 409, 422, 502],
});

export const uploadEvalBenchmark = contract({
  tag, method: "POST", path: "/evals/sets/{id}/import/upload", scope: "memories:write",
  summary: "Import a LongMemEval / LoCoMo file of any size: the body is the file (application/octet-stream)",
  description:
    "The same import as POST /evals/sets/{id}/import with a LongMemEval or LoCoMo file, for files of hundreds of MB: the body is the file's bytes (Content-Type application/octet-stream), written to a temporary file as it arrives and read from there record by record, so the server's memory does not grow with the file; it is checked whole first, so a bad record is a 422 with nothing written. Answers when the import is done, with the file's defects as POST /evals/sets/{id}/import lists them; `dry_run=true` answers 200 with every defect, writing nothing. 409 chat_not_configured: extraction chat without a chat model; 502 provider_error: the chat model or the embedding endpoint failed (records written before stay).",
  params: ZSetParams, query: ZBenchmarkUploadQuery, rawBody: { contentType: "application/octet-stream", description: "The LongMemEval or LoCoMo file (a JSON array), up to 2 GiB." },
  response: ZImportSummary, status: 201, alsoStatus: [200], errors: [404, 409, 415, 422, 502],
});

export const listEvalRuns = contract({
  tag, method: "GET", path: "/evals/sets/{id}/runs", scope: "memories:read",
  summary: "A set's runs, oldest first (the newest 200): each with its metrics, for the chart",
  params: ZSetParams, response: z.object({ data: z.array(ZEvalRun) }), errors: [404],
});

export const createEvalRun = contract({
  tag, method: "POST", path: "/evals/sets/{id}/runs", scope: "memories:write",
  summary: "Run a set under a configuration; answers the stored run with its metrics",
  description:
    "Every case is searched like POST /users/{user_id}/memories/search (or its as_of form) without logging the retrieval or marking memories accessed. Metrics per set and per category carry 95% bootstrap intervals (seeded: the same results give the same intervals). The request answers when the run is done; meanwhile the run yields between cases, so the server goes on answering. 409 eval_run_in_progress: a run of this set is in progress (on any instance); 409 embeddings_misconfigured: the active embedding model is not configured any more; 502 provider_error: the embedding endpoint failed (nothing of the run is stored).",
  params: ZSetParams, body: ZRunCreate, bodyOptional: true, bodyLimit: 16 * 1024, response: ZEvalRun, status: 201, errors: [404, 409, 422, 502],
});

export const getEvalRun = contract({
  tag, method: "GET", path: "/evals/runs/{id}", scope: "memories:read",
  summary: "A run with its configuration and metrics",
  params: ZRunParams, response: ZEvalRun, errors: [404],
});

export const listEvalRunCases = contract({
  tag, method: "GET", path: "/evals/runs/{id}/cases", scope: "memories:read",
  summary: "A run's cases (failed first) with ranks and scores",
  params: ZRunParams, query: z.object({ only: z.enum(["failed", "passed"]).optional() }).strict(),
  response: z.object({ data: z.array(ZRunCase) }), errors: [404, 422],
});

export const getEvalRunCase = contract({
  tag, method: "GET", path: "/evals/runs/{id}/cases/{case_id}", scope: "memories:read",
  summary: "A case's drill-down: what was expected, what was retrieved with its score parts",
  params: ZRunParams.extend({ case_id: pathId("Eval case") }), response: ZRunCaseDetail, errors: [404],
});

export const compareEvalRuns = contract({
  tag, method: "GET", path: "/evals/runs/{id}/compare", scope: "memories:read",
  summary: "This run against `base`: newly failed and passed cases, metric deltas with a paired bootstrap test",
  params: ZRunParams, query: z.object({ base: z.uuid().optional().describe("The run to compare against; without it, the run of the same set made just before this one (422 when there is none).") }).strict(),
  response: ZComparison, errors: [404, 422],
});

export const EVAL_CONTRACTS = [
  listEvalSets, createEvalSet, getEvalSet, deleteEvalSet, listEvalCases, createEvalCases, deleteEvalCase, importEvalCases, uploadEvalBenchmark,
  listEvalRuns, createEvalRun, getEvalRun, listEvalRunCases, getEvalRunCase, compareEvalRuns,
];
