import { z } from "zod";
import { ZRetentionPreview, ZRetentionRule, ZRetentionRules, ZRetentionRun, ZRuleCreate, ZRulePatch } from "../../retention/schemas";
import { contract, pathId } from "../contract";

// Retention rules (issue 24 part 4): per project, what to delete, erase or archive after N days.
// Each rule runs daily on one instance at a time; every run is in the audit log with its counts.

const tag = "retention";
const ZRuleParams = z.object({ id: pathId("Retention rule") });

export const listRetentionRules = contract({
  tag, method: "GET", path: "/retention/rules", scope: "project:admin",
  summary: "The project's retention rules, each with its newest runs",
  response: ZRetentionRules,
});

export const createRetentionRule = contract({
  tag, method: "POST", path: "/retention/rules", scope: "project:admin",
  summary: "Add a retention rule (off unless enabled: true); an enabled rule is due at once: the next scheduler pass runs it, then daily",
  description: "Create it, read its preview (GET /retention/rules/{id}/preview), then enable it (PATCH) once the preview is right.",
  body: ZRuleCreate, bodyLimit: 16 * 1024, response: ZRetentionRule, status: 201, errors: [422],
});

export const updateRetentionRule = contract({
  tag, method: "PATCH", path: "/retention/rules/{id}", scope: "project:admin",
  summary: "Change a rule's days or turn it on or off",
  params: ZRuleParams, body: ZRulePatch, bodyLimit: 16 * 1024, response: ZRetentionRule, errors: [404, 422],
});

export const deleteRetentionRule = contract({
  tag, method: "DELETE", path: "/retention/rules/{id}", scope: "project:admin",
  summary: "Remove a rule (its runs stay in the audit log)",
  params: ZRuleParams, status: 204, errors: [404],
});

export const previewRetentionRule = contract({
  tag, method: "GET", path: "/retention/rules/{id}/preview", scope: "project:admin",
  summary: "Dry run: counts and samples of what running the rule now would delete, erase or archive",
  params: ZRuleParams, response: ZRetentionPreview, errors: [404],
});

export const runRetentionRule = contract({
  tag, method: "POST", path: "/retention/rules/{id}/run", scope: "project:admin",
  summary: "Run the rule now (its counts are those of the preview made just before); recorded in the audit log",
  description: "409 retention_run_in_progress while the rule runs elsewhere (the schedule, another request, another instance).",
  params: ZRuleParams, bodyOptional: true, body: z.strictObject({}), response: ZRetentionRun, errors: [404, 409, 422],
});

export const RETENTION_CONTRACTS = [listRetentionRules, createRetentionRule, updateRetentionRule, deleteRetentionRule, previewRetentionRule, runRetentionRule];
