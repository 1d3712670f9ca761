import "server-only";
import { randomUUID } from "node:crypto";
import type { Database } from "../db/open-database";
import { LOCK_KEYS } from "../db/open-database";
import { projectSql, type ProjectSql } from "../db/project-sql";
import { ConflictError } from "../errors/domain-errors";
import { purgeProcessCaches } from "../privacy/purge-caches";
import { previewConversations, runConversations } from "./delete-conversations";
import { previewUsers, runUsers } from "./erase-inactive-users";
import { previewMemories, runMemories } from "./archive-memories";
import type { KindPreview, KindRun, RunContext } from "./kind";
import { auditRetention } from "./audit";
import { requireRule, type RuleRow } from "./rules";
import type { RetentionPreview, RetentionRun, RuleKind } from "./schemas";

// A rule's preview and run. A run, scheduled or "run now", holds the advisory lock of its
// rule (Database.tryLock: one instance at a time on PostgreSQL, one call at a time in the
// embedded database's one process) and is recorded in the audit log ("retention.run", target
// the rule id) with its counts. The scheduled run also claims the rule by moving next_run_at
// a day on, under the lock: an instance that gets the lock after the first one finished finds
// the rule no longer due, so a day's run happens once.

const KINDS: Record<RuleKind, { preview(sql: ProjectSql, cutoff: string): Promise<KindPreview>; run(sql: ProjectSql, cutoff: string, ctx: RunContext): Promise<KindRun> }> = {
  delete_conversations: { preview: previewConversations, run: runConversations },
  erase_inactive_users: { preview: previewUsers, run: runUsers },
  archive_memories: { preview: previewMemories, run: runMemories },
};

/** now() - days, from the database's clock (the one updated_at and created_at were written with). */
async function cutoffOf(sql: ProjectSql, days: number): Promise<string> {
  const [r] = await sql.query<{ cutoff: Date | string }>(`SELECT now() - $1::int * interval '1 day' AS cutoff`, [days]);
  return new Date(r.cutoff).toISOString();
}

export async function previewRule(sql: ProjectSql, id: string): Promise<RetentionPreview> {
  const rule = await requireRule(sql, id);
  const cutoff = await cutoffOf(sql, rule.days);
  const p = await KINDS[rule.kind].preview(sql, cutoff);
  return { rule_id: rule.id, kind: rule.kind, days: rule.days, cutoff, counts: p.counts, samples: p.samples };
}

const lockName = (r: Pick<RuleRow, "project_id" | "id">) => `retention:${r.project_id}:${r.id}`;

async function execute(sql: ProjectSql, rule: RuleRow, trigger: RetentionRun["trigger"], by: string, shouldStop: () => boolean): Promise<RetentionRun> {
  const started = new Date().toISOString();
  const cutoff = await cutoffOf(sql, rule.days);
  const out = await KINDS[rule.kind].run(sql, cutoff, { shouldStop, by, ruleId: rule.id });
  if (Object.values(out.counts).some((n) => n > 0)) purgeProcessCaches();
  await sql.query(`UPDATE retention_rules SET last_run_at = now() WHERE project_id = $1 AND id = $2`, [sql.projectId, rule.id]);
  const run: RetentionRun = {
    run_id: randomUUID(),
    rule_id: rule.id,
    kind: rule.kind,
    days: rule.days,
    trigger,
    cutoff,
    started_at: started,
    finished_at: new Date().toISOString(),
    by,
    counts: out.counts,
    receipts: out.receipts,
    complete: out.complete,
  };
  await auditRetention(sql, { action: "retention.run", actor: by, target: rule.id, details: run });
  return run;
}

/** "Run now": a 409 while the rule runs elsewhere (another request, the schedule, another instance). */
export async function runRuleNow(db: Database, sql: ProjectSql, id: string, by: string): Promise<RetentionRun> {
  const rule = await requireRule(sql, id);
  const r = await db.tryLock(LOCK_KEYS.retention, lockName(rule), () => execute(sql, rule, "manual", by, () => false));
  if (!r.locked) throw new ConflictError("This retention rule is running right now; its run will be in the audit log", [{ field: "id", message: "running" }], "retention_run_in_progress");
  return r.value;
}

export const SCHEDULE_ACTOR = "retention schedule";

/**
 * The scheduler's pass: every enabled rule that is due, in any project, each under its lock
 * and claimed before it runs. Returns the runs this instance made.
 */
export async function runDueRules(db: Database, shouldStop: () => boolean): Promise<RetentionRun[]> {
  const due = await db.sql.query<RuleRow>(`SELECT * FROM retention_rules WHERE enabled AND next_run_at <= now() ORDER BY next_run_at LIMIT 100`);
  const runs: RetentionRun[] = [];
  for (const candidate of due) {
    if (shouldStop()) break;
    const r = await db.tryLock(LOCK_KEYS.retention, lockName(candidate), async () => {
      // Claimed under the lock: another instance that ran it meanwhile has moved it on.
      const [rule] = await db.sql.query<RuleRow>(
        `UPDATE retention_rules SET next_run_at = now() + interval '1 day'
          WHERE project_id = $1 AND id = $2 AND enabled AND next_run_at <= now() RETURNING *`,
        [candidate.project_id, candidate.id],
      );
      if (!rule) return null;
      return execute(projectSql(db.sql, rule.project_id, SCHEDULE_ACTOR), rule, "schedule", SCHEDULE_ACTOR, shouldStop);
    });
    if (r.locked && r.value) runs.push(r.value);
  }
  return runs;
}
