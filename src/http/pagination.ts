import { z } from 'zod';
import { ValidationError } from '../errors.js';

/** Position after the last row of a page: its creation time and id (ties broken by id). */
export interface PageCursor {
  createdAt: Date;
  id: string;
}

export const PaginationQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1–100'),
  cursor: z.string().max(200).optional().describe('`next_cursor` of the previous page'),
});

export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), cursor.id])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): PageCursor | undefined {
  if (cursor === undefined) return undefined;
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(createdAt);
    if (typeof id !== 'string' || Number.isNaN(date.getTime())) throw new Error('bad cursor');
    return { createdAt: date, id };
  } catch {
    throw new ValidationError([{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'invalid_cursor' }]);
  }
}

/**
 * SQL for newest-first keyset pagination. Time is compared and ordered at millisecond precision,
 * the precision a cursor carries, so rows created within one millisecond are never skipped.
 */
export function keyset(timeColumn: string, idColumn: string, after: PageCursor | undefined, firstParam: number) {
  const time = `date_trunc('milliseconds', ${timeColumn})`;
  return {
    where: after ? `AND (${time}, ${idColumn}) < ($${firstParam}::timestamptz, $${firstParam + 1})` : '',
    orderBy: `ORDER BY ${time} DESC, ${idColumn} DESC`,
    params: after ? [after.createdAt, after.id] : [],
  };
}

/** Rows are fetched with `limit + 1`; the extra one only says there is a next page. */
export function toPage<T, P>(
  rows: T[],
  limit: number,
  cursorOf: (row: T) => PageCursor,
  present: (row: T) => P,
): { data: P[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(present), next_cursor: rows.length > limit && last ? encodeCursor(cursorOf(last)) : null };
}

export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page') });
