/**
 * Watches operations reach an end from the bench's own process, reading the database once every
 * 20 ms for all of them (one query, whatever their number), so waiting for them loads neither the
 * api nor the worker. Times are the database's `completed_at`, on this machine's clock.
 */
import type { Db } from '../../src/db/pool.js';

export interface Ended {
  status: string;
  completedAt: number;
}

export class OperationWatcher {
  private readonly waiting = new Map<string, (ended: Ended) => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Db) {}

  /** Resolves when the operation is succeeded, failed or cancelled. */
  ended(operationId: string): Promise<Ended> {
    const done = new Promise<Ended>((resolve) => this.waiting.set(operationId, resolve));
    this.timer ??= setInterval(() => void this.poll(), 20);
    return done;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private polling = false;

  private async poll(): Promise<void> {
    if (this.polling || this.waiting.size === 0) return;
    this.polling = true;
    try {
      const { rows } = await this.db.query<{ id: string; status: string; completed: Date }>(
        `SELECT id, status, completed_at AS completed FROM operations WHERE id = ANY($1) AND status IN ('succeeded', 'failed', 'cancelled')`,
        [[...this.waiting.keys()]],
      );
      for (const row of rows) {
        this.waiting.get(row.id)?.({ status: row.status, completedAt: row.completed.getTime() });
        this.waiting.delete(row.id);
      }
    } finally {
      this.polling = false;
    }
  }
}

/**
 * Nothing lost or charged twice for these organisations: every operation ended, every succeeded one
 * captured exactly once, no other capture, nothing still reserved. Returns what is wrong, if anything.
 */
export async function ledgerProblems(db: Db, orgIds: string[]): Promise<string[]> {
  const problems: string[] = [];
  const open = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM operations WHERE org_id = ANY($1) AND status IN ('pending', 'running')`, [orgIds]);
  if (open.rows[0]!.n > 0) problems.push(`${open.rows[0]!.n} operations still open`);
  const captures = await db.query<{ id: string | null; status: string | null; n: number }>(
    `SELECT t.operation_id AS id, o.status, count(*)::int AS n FROM billing_transactions t LEFT JOIN operations o ON o.id = t.operation_id
     WHERE t.org_id = ANY($1) AND t.type = 'capture' GROUP BY t.operation_id, o.status`,
    [orgIds],
  );
  for (const row of captures.rows) {
    if (row.n !== 1) problems.push(`operation ${row.id} captured ${row.n} times`);
    if (row.status !== 'succeeded') problems.push(`operation ${row.id} captured but ${row.status}`);
  }
  const succeeded = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM operations WHERE org_id = ANY($1) AND status = 'succeeded'`, [orgIds]);
  if (succeeded.rows[0]!.n !== captures.rows.length) problems.push(`${succeeded.rows[0]!.n} succeeded, ${captures.rows.length} captured`);
  const held = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM billing_reservations WHERE org_id = ANY($1) AND state = 'reserved'`, [orgIds]);
  if (held.rows[0]!.n > 0) problems.push(`${held.rows[0]!.n} reservations still held`);
  return problems;
}
