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
 * The time is truncated as UTC wall time, an immutable expression, so an index on it serves the order
 * and a page deep into a big set reads only its own rows (docs/bench.md, Scale).
 */
export function keyset(p: SqlParams, columns: { time: string; id: string }, page: PageRequest): { condition: string; tail: string } {
  const time = keysetTime(columns.time);
  const condition = page.after
    ? `(${time}, ${columns.id}) < (date_trunc('milliseconds', ${p.add(page.after.createdAt)}::timestamptz AT TIME ZONE 'UTC'), ${p.add(page.after.id)})`
    : 'TRUE';
  return { condition, tail: `ORDER BY ${time} DESC, ${columns.id} DESC LIMIT ${p.add(page.limit + 1)}` };
}

/** The ordering expression of `keyset`, as the indexes that serve it spell it (migrations/*_keyset_page_indexes.sql). */
export function keysetTime(column: string): string {
  return `date_trunc('milliseconds', ${column} AT TIME ZONE 'UTC')`;
}
