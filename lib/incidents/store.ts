import "server-only";
import { z } from "zod";
import { recordAuditSql } from "./audit";
import type { ProjectSql } from "../db/project-sql";
import { BadRequestError, NotFoundError, ValidationError } from "../errors/domain-errors";
import { addCases } from "../evals/sets-db";
import type { EvalCase } from "../evals/schemas";
import { decodeCursor, encodeCursor, ZCursorTime, ZCursorUuid } from "../pagination/cursor";
import {
  INCIDENT_KINDS,
  INCIDENT_SEVERITIES,
  INCIDENT_STATUSES,
  MEMORY_KINDS,
  type Incident,
  type IncidentKind,
  type IncidentListQuery,
  type IncidentPatch,
  type IncidentSummary,
  type IncidentSummaryQuery,
} from "./schemas";

// Reading and judging stored incidents. Every statement names the project: another
// project's incident is "not found", exactly as an id that never existed.

type Row = {
  id: string;
  kind: IncidentKind;
  severity: Incident["severity"];
  status: Incident["status"];
  conversation_id: string;
  message_id: string;
  user_id: string | null;
  app_id: string | null;
  memory_ids: string[] | string;
  summary: string;
  evidence: Record<string, unknown> | string;
  turn_at: Date | string;
  detected_at: Date | string;
  note: string | null;
  status_changed_by: string | null;
  status_changed_at: Date | string | null;
};

const COLUMNS = `id, kind, severity, status, conversation_id, message_id, user_id, app_id, memory_ids, summary, evidence, turn_at, detected_at, note, status_changed_by, status_changed_at`;
const iso = (d: Date | string) => new Date(d).toISOString();

/** uuid[] comes back as an array from node-postgres and as '{a,b}' text from some drivers. */
function uuidArray(v: string[] | string): string[] {
  if (Array.isArray(v)) return v;
  const inner = v.replace(/^\{|\}$/g, "");
  return inner ? inner.split(",") : [];
}

export function toIncident(r: Row): Incident {
  return {
    id: r.id,
    kind: r.kind,
    severity: r.severity,
    status: r.status,
    conversation_id: r.conversation_id,
    message_id: r.message_id,
    user_id: r.user_id,
    app_id: r.app_id,
    memory_ids: uuidArray(r.memory_ids),
    summary: r.summary,
    evidence: typeof r.evidence === "string" ? (JSON.parse(r.evidence) as Record<string, unknown>) : r.evidence,
    turn_at: iso(r.turn_at),
    detected_at: iso(r.detected_at),
    note: r.note,
    status_changed_by: r.status_changed_by,
    status_changed_at: r.status_changed_at === null ? null : iso(r.status_changed_at),
  };
}

/** A comma-separated filter checked against the values it takes: 400 invalid_filter naming the field. */
export function parseFilter<T extends string>(field: string, raw: string | undefined, allowed: readonly T[]): T[] | null {
  if (raw === undefined) return null;
  const values = raw.split(",").map((v) => v.trim()).filter(Boolean);
  const bad = values.filter((v) => !(allowed as readonly string[]).includes(v));
  if (bad.length || !values.length) {
    throw new BadRequestError("invalid_filter", `${field} must be one of ${allowed.join(", ")} (got ${JSON.stringify(raw)})`, [
      { field, message: `unknown value ${JSON.stringify(bad[0] ?? raw)}; one of ${allowed.join(", ")}` },
    ]);
  }
  return [...new Set(values)] as T[];
}

const LIST = "incidents";

export async function listIncidents(sql: ProjectSql, q: IncidentListQuery): Promise<{ data: Incident[]; next_cursor: string | null }> {
  const kinds = parseFilter("kind", q.kind, INCIDENT_KINDS);
  const statuses = parseFilter("status", q.status, INCIDENT_STATUSES);
  const severities = parseFilter("severity", q.severity, INCIDENT_SEVERITIES);
  const after = decodeCursor(q.cursor, LIST, [ZCursorTime, ZCursorUuid]);
  const params: unknown[] = [sql.projectId];
  const where = [`project_id = $1`];
  const add = (cond: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(cond(`$${params.length}`));
  };
  if (kinds) add((p) => `kind = ANY(${p}::text[])`, kinds);
  if (statuses) add((p) => `status = ANY(${p}::text[])`, statuses);
  if (severities) add((p) => `severity = ANY(${p}::text[])`, severities);
  if (q.app_id !== undefined) add((p) => `app_id = ${p}`, q.app_id);
  if (q.user_id !== undefined) add((p) => `user_id = ${p}`, q.user_id);
  if (q.conversation_id !== undefined) add((p) => `conversation_id = ${p}::uuid`, q.conversation_id);
  if (q.message_id !== undefined) add((p) => `message_id = ${p}::uuid`, q.message_id);
  if (after) {
    params.push(after[0], after[1]);
    where.push(`(detected_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(q.limit + 1);
  const rows = await sql.query<Row & { detected_text: string }>(
    `SELECT ${COLUMNS}, to_char(detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS detected_text
       FROM incidents WHERE ${where.join(" AND ")} ORDER BY detected_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return { data: page.map(toIncident), next_cursor: rows.length > q.limit && last ? encodeCursor(LIST, [last.detected_text, last.id]) : null };
}

const ZUuid = z.uuid();

export async function getIncident(sql: ProjectSql, id: string): Promise<Incident> {
  if (!ZUuid.safeParse(id).success) throw new NotFoundError("Incident", id);
  const [row] = await sql.query<Row>(`SELECT ${COLUMNS} FROM incidents WHERE project_id = $1 AND id = $2`, [sql.projectId, id]);
  if (!row) throw new NotFoundError("Incident", id);
  return toIncident(row);
}

/**
 * Judges an incident. false_positive also stores the suppression of its rule for each of its
 * memories and its end user (the rules skip the pair from then on); leaving false_positive
 * lifts the suppressions this incident made. One transaction, recorded in the audit log.
 */
export async function updateIncident(sql: ProjectSql, id: string, patch: IncidentPatch): Promise<Incident> {
  const before = await getIncident(sql, id);
  return sql.transaction(async (tx) => {
    const changesStatus = patch.status !== before.status;
    const [row] = await tx.query<Row>(
      `UPDATE incidents SET status = $3,
              note = CASE WHEN $4::boolean THEN $5 ELSE note END,
              status_changed_by = CASE WHEN $6::boolean THEN $7 ELSE status_changed_by END,
              status_changed_at = CASE WHEN $6::boolean THEN now() ELSE status_changed_at END
        WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [tx.projectId, id, patch.status, patch.note !== undefined, patch.note ?? null, changesStatus, tx.actorLabel],
    );
    if (!row) throw new NotFoundError("Incident", id);
    if (before.user_id && MEMORY_KINDS.includes(before.kind)) {
      if (patch.status === "false_positive") {
        await tx.query(
          `INSERT INTO incident_suppressions (project_id, user_id, kind, memory_id, incident_id, created_by)
           SELECT $1, $2, $3, m, $4, $5 FROM unnest($6::uuid[]) AS m
           ON CONFLICT (project_id, user_id, kind, memory_id) DO NOTHING`,
          [tx.projectId, before.user_id, before.kind, id, tx.actorLabel, before.memory_ids],
        );
      } else if (before.status === "false_positive") {
        await tx.query(`DELETE FROM incident_suppressions WHERE project_id = $1 AND incident_id = $2`, [tx.projectId, id]);
      }
    }
    if (changesStatus) {
      await recordAuditSql(tx, { action: "incident.judged", actor: tx.actorLabel ?? "open", target: id, details: { kind: before.kind, from: before.status, to: patch.status } });
    }
    return toIncident(row);
  });
}

/** A regression case of the incident: the turn's question, expecting the memory that was missed. */
export async function evalCaseFromIncident(sql: ProjectSql, id: string, setId: string): Promise<EvalCase> {
  const inc = await getIncident(sql, id);
  if (!MEMORY_KINDS.includes(inc.kind) || !inc.memory_ids.length) {
    throw new ValidationError(`Incident ${id} (${inc.kind}) names no memory to expect`, [{ field: "id", message: `a ${inc.kind} incident names no memory` }]);
  }
  if (!inc.user_id) throw new ValidationError(`Incident ${id}'s conversation has no end user`, [{ field: "id", message: "the turn has no end user" }]);
  const [turn] = await sql.query<{ query: string }>(`SELECT query FROM messages WHERE project_id = $1 AND id = $2`, [sql.projectId, inc.message_id]);
  if (!turn?.query.trim()) throw new NotFoundError("Message", inc.message_id, "message_id");
  const externalId = `incident:${id}`;
  const made = await addCases(sql, setId, [
    { user_id: inc.user_id, question: turn.query.slice(0, 5000), expected: { memory_ids: inc.memory_ids, turns: [], texts: [] }, category: inc.kind, tags: ["incident"], external_id: externalId },
  ]);
  if (made.data[0]) return made.data[0];
  // Made before: the set holds a case with this external id; answer it.
  const [c] = await sql.query<{ id: string; set_id: string; user_id: string; question: string; expected: EvalCase["expected"]; category: string | null; tags: string[]; external_id: string | null; created_at: Date | string }>(
    `SELECT id, set_id, user_id, question, expected, category, tags, external_id, created_at FROM eval_cases WHERE project_id = $1 AND set_id = $2 AND external_id = $3`,
    [sql.projectId, setId, externalId],
  );
  return { ...c!, tags: c!.tags ?? [], created_at: iso(c!.created_at) };
}

const DAY_MS = 86_400_000;
const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

export async function incidentSummary(sql: ProjectSql, q: IncidentSummaryQuery): Promise<IncidentSummary> {
  const to = q.to ?? dayOf(Date.now());
  const from = q.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS);
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`) + DAY_MS;
  if (!(start < end)) throw new ValidationError("from must not be after to", [{ field: "from", message: "after to" }]);
  if (end - start > 366 * DAY_MS) throw new ValidationError("The range is at most 366 days", [{ field: "from", message: "more than 366 days before to" }]);
  const app = q.app_id ?? null;
  const [days, totals, badge, judged] = await Promise.all([
    sql.query<{ day: string; kind: IncidentKind; count: string | number }>(
      `SELECT to_char(turn_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, kind, count(*) AS count FROM incidents
        WHERE project_id = $1 AND turn_at >= $2 AND turn_at < $3 AND ($4::text IS NULL OR app_id = $4)
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [sql.projectId, new Date(start), new Date(end), app],
    ),
    sql.query<{ kind: IncidentKind; count: string | number; open: string | number }>(
      `SELECT kind, count(*) AS count, count(*) FILTER (WHERE status = 'open') AS open FROM incidents
        WHERE project_id = $1 AND turn_at >= $2 AND turn_at < $3 AND ($4::text IS NULL OR app_id = $4) GROUP BY kind`,
      [sql.projectId, new Date(start), new Date(end), app],
    ),
    sql.query<{ open_high: string | number; open: string | number }>(
      `SELECT (SELECT count(*) FROM incidents WHERE project_id = $1 AND status = 'open' AND severity = 'high') AS open_high,
              (SELECT count(*) FROM incidents WHERE project_id = $1 AND status = 'open') AS open`,
      [sql.projectId],
    ),
    sql.query<{ kind: IncidentKind; confirmed: string | number; false_positive: string | number }>(
      `SELECT kind, count(*) FILTER (WHERE status IN ('acknowledged', 'resolved')) AS confirmed, count(*) FILTER (WHERE status = 'false_positive') AS false_positive
         FROM incidents WHERE project_id = $1 AND status <> 'open' AND ($2::text IS NULL OR app_id = $2) GROUP BY kind`,
      [sql.projectId, app],
    ),
  ]);
  const totalOf = new Map(totals.map((t) => [t.kind, t]));
  const judgedOf = new Map(judged.map((j) => [j.kind, j]));
  return {
    from,
    to,
    days: days.map((d) => ({ day: d.day, kind: d.kind, count: Number(d.count) })),
    totals: INCIDENT_KINDS.map((kind) => ({ kind, count: Number(totalOf.get(kind)?.count ?? 0), open: Number(totalOf.get(kind)?.open ?? 0) })),
    open_high: Number(badge[0]?.open_high ?? 0),
    open: Number(badge[0]?.open ?? 0),
    precision: INCIDENT_KINDS.map((kind) => {
      const j = judgedOf.get(kind);
      const confirmed = Number(j?.confirmed ?? 0);
      const fp = Number(j?.false_positive ?? 0);
      return { kind, judged: confirmed + fp, confirmed, false_positive: fp, precision: confirmed + fp ? confirmed / (confirmed + fp) : null };
    }),
  };
}
