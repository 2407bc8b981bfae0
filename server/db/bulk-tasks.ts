import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const BULK_TYPES = ['status', 'action', 'tag', 'untag', 'attributes', 'delete'] as const;
export type BulkType = (typeof BULK_TYPES)[number];
export type TaskStatus = 'pending' | 'started' | 'success' | 'failure';

/** What a task needs to act as the request that created it would have. */
export interface CallerSnapshot {
  ip: string;
  user: string | null;
  baseUrl: string;
  customers: string[] | null;
  headers: Record<string, string>;
}

const TaskRowSchema = z.object({
  id: z.string(),
  type: z.enum(BULK_TYPES),
  status: z.enum(['pending', 'started', 'success', 'failure']),
  ids: z.array(z.string()),
  body: z.record(z.string(), z.unknown()),
  caller: z.object({
    ip: z.string(),
    user: z.string().nullable(),
    baseUrl: z.string(),
    customers: z.array(z.string()).nullable(),
    headers: z.record(z.string(), z.string()),
  }),
  done: z.number(),
  changed: z.array(z.string()),
  errors: z.array(z.string()),
  createTime: z.number(),
  updateTime: z.number(),
});
export type TaskRow = z.infer<typeof TaskRowSchema>;

const columns = sql.fragment`id, type, status, ids, body, caller, done, changed, errors,
  create_time AS "createTime", update_time AS "updateTime"`;

export function insertTask(
  db: CommonQueryMethods,
  t: {
    id: string;
    type: BulkType;
    ids: string[];
    body: Record<string, unknown>;
    caller: CallerSnapshot;
    now: number;
  },
) {
  const now = sql.timestamp(new Date(t.now));
  return db.one(sql.type(TaskRowSchema)`
    INSERT INTO bulk_tasks (id, type, ids, body, caller, create_time, update_time)
    VALUES (${t.id}, ${t.type}, ${sql.array(t.ids, 'text')}, ${sql.jsonb(t.body as never)},
      ${sql.jsonb(t.caller as never)}, ${now}, ${now})
    RETURNING ${columns}`);
}

export function findTask(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(TaskRowSchema)`SELECT ${columns} FROM bulk_tasks WHERE id = ${id}`);
}

/**
 * Takes the oldest task nobody is running (pending, or started with an expired lease) for `owner`,
 * so that several instances share the work and a stopped instance's tasks are resumed.
 */
export function claimTask(db: CommonQueryMethods, owner: string, leaseMs: number) {
  return db.maybeOne(sql.type(TaskRowSchema)`
    UPDATE bulk_tasks t SET status = 'started', owner = ${owner},
      lease_until = now() + ${leaseMs} * interval '1 millisecond'
    WHERE t.id = (
      SELECT id FROM bulk_tasks
      WHERE status = 'pending' OR (status = 'started' AND lease_until < now())
      ORDER BY create_time LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING ${columns}`);
}

/** Records a finished chunk and renews the lease; false if another owner took the task over. */
export async function recordProgress(
  db: CommonQueryMethods,
  p: {
    id: string;
    owner: string;
    done: number;
    changed: string[];
    errors: string[];
    leaseMs: number;
    now: number;
  },
): Promise<boolean> {
  const r = await db.query(sql.unsafe`
    UPDATE bulk_tasks SET done = ${p.done}, changed = changed || ${sql.array(p.changed, 'text')},
      errors = errors || ${sql.array(p.errors, 'text')},
      lease_until = now() + ${p.leaseMs} * interval '1 millisecond', update_time = ${sql.timestamp(new Date(p.now))}
    WHERE id = ${p.id} AND owner = ${p.owner} AND status = 'started'`);
  return r.rowCount > 0;
}

export async function finishTask(
  db: CommonQueryMethods,
  p: { id: string; owner: string; status: 'success' | 'failure'; errors: string[]; now: number },
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE bulk_tasks SET status = ${p.status}, errors = errors || ${sql.array(p.errors, 'text')},
      lease_until = NULL, update_time = ${sql.timestamp(new Date(p.now))}
    WHERE id = ${p.id} AND owner = ${p.owner}`);
}
