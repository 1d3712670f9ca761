import { z } from "zod";
import { ZEvalCase } from "../../evals/schemas";
import {
  ZEvalCaseFromIncident,
  ZIncident,
  ZIncidentListQuery,
  ZIncidentPatch,
  ZIncidentScan,
  ZIncidentSummary,
  ZIncidentSummaryQuery,
  ZScanCreate,
} from "../../incidents/schemas";
import { contract, page, pathId } from "../contract";

// Memory incidents (issue 38): turns where memory failed, found by lib/incidents' rules on
// ingest and by backfill scans. Scopes as for memories: reading needs read, judging and
// scanning need write. Another project's incident or scan answers like an unknown id.

const tag = "incidents";
const ZIncidentParams = z.object({ id: pathId("Incident") });
const ZScanParams = z.object({ id: pathId("Incident scan") });

export const listIncidents = contract({
  tag, method: "GET", path: "/incidents", scope: "memories:read",
  summary: "Incidents, newest detected first (filters, cursor)",
  description: "kind, status and severity take one value or several separated by commas; an unknown value is 400 invalid_filter naming the field.",
  query: ZIncidentListQuery, response: page(ZIncident), errors: [422],
});

export const incidentSummary = contract({
  tag, method: "GET", path: "/incidents/summary", scope: "memories:read",
  summary: "Counts per kind per day over a range, open high-severity count (the navigation badge), precision per kind as people judged it",
  query: ZIncidentSummaryQuery, response: ZIncidentSummary, errors: [422],
});

export const getIncident = contract({
  tag, method: "GET", path: "/incidents/{id}", scope: "memories:read",
  summary: "An incident with its evidence",
  params: ZIncidentParams, response: ZIncident, errors: [404],
});

export const updateIncident = contract({
  tag, method: "PATCH", path: "/incidents/{id}", scope: "memories:write",
  summary: "Judge an incident: open, acknowledged, resolved or false_positive, with a note (false_positive suppresses the rule for that memory and end user)",
  params: ZIncidentParams, body: ZIncidentPatch, bodyLimit: 16 * 1024, response: ZIncident, errors: [404, 422],
});

export const incidentEvalCase = contract({
  tag, method: "POST", path: "/incidents/{id}/eval-case", scope: "memories:write",
  summary: "Make a regression eval case of the incident: its turn's question, expecting the memory that was missed",
  description: "422 when the incident names no memory (dropped_reference, over_context_window) or its turn has no end user; 404 for an unknown incident or set.",
  params: ZIncidentParams, body: ZEvalCaseFromIncident, bodyLimit: 4 * 1024, response: ZEvalCase, status: 201, errors: [404, 422],
});

export const startIncidentScan = contract({
  tag, method: "POST", path: "/incidents/scan", scope: "memories:write",
  summary: "Backfill: run the rules over stored turns as a job (one conversation, or every one; since: only newer turns)",
  description: "Answers 202 with the job; follow it with GET /incidents/scan/{id}. 409 incident_scan_in_progress names the job already running for the same scope; 404 for a conversation the project does not have.",
  bodyOptional: true, body: ZScanCreate, bodyLimit: 4 * 1024, response: ZIncidentScan, status: 202, errors: [404, 409, 422],
});

export const getIncidentScan = contract({
  tag, method: "GET", path: "/incidents/scan/{id}", scope: "memories:read",
  summary: "A scan job's progress",
  params: ZScanParams, response: ZIncidentScan, errors: [404],
});

export const INCIDENT_CONTRACTS = [listIncidents, incidentSummary, getIncident, updateIncident, incidentEvalCase, startIncidentScan, getIncidentScan];
