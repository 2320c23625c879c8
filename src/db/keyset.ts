import type { SqlParams } from './sqlParams.js';

/** Position after the last row of a page: its creation time and id (ties broken by id). */
export interface PageCursor {
  createdAt: Date;
  id: string;
}

/** What a newest-first list is asked for: up to `limit` rows after the cursor (none: from the newest). */
export interface PageRequest {
  limit: number;
  after: PageCursor | undefined;
}

/**
 * SQL for newest-first keyset pagination over `(timeColumn, idColumn)`: a condition for the WHERE
 * clause and the ORDER BY … LIMIT tail. Time is compared and ordered at millisecond precision, the
 * precision a cursor carries, so rows created within one millisecond are never skipped. It asks for
 * `limit + 1` rows: the extra one only says there is a next page (see `toPage` in src/http/pagination.ts).
 */
export function keyset(p: SqlParams, columns: { time: string; id: string }, page: PageRequest): { condition: string; tail: string } {
  const time = `date_trunc('milliseconds', ${columns.time})`;
  const condition = page.after
    ? `(${time}, ${columns.id}) < (${p.add(page.after.createdAt)}::timestamptz, ${p.add(page.after.id)})`
    : 'TRUE';
  return { condition, tail: `ORDER BY ${time} DESC, ${columns.id} DESC LIMIT ${p.add(page.limit + 1)}` };
}
