import { z } from 'zod';
import { ValidationError } from '../errors.js';
import type { PageCursor } from '../db/keyset.js';

export const PaginationQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1–100'),
  cursor: z.string().max(200).optional().describe('`next_cursor` of the previous page'),
});

export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), cursor.id])).toString('base64url');
}

/** Ids are `prefix_base62`; dates are those rows can have (PostgreSQL refuses some years JavaScript allows). */
const CURSOR_ID = /^[A-Za-z0-9_-]{1,64}$/;
const EARLIEST_MS = Date.UTC(2000, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 31);

function parseCursor(cursor: string): PageCursor | undefined {
  const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [createdAt, id] = value as unknown[];
  if (typeof createdAt !== 'string' || typeof id !== 'string' || !CURSOR_ID.test(id)) return undefined;
  const date = new Date(createdAt);
  const ms = date.getTime();
  if (Number.isNaN(ms) || ms < EARLIEST_MS || ms > LATEST_MS) return undefined;
  return { createdAt: date, id };
}

/** A cursor we issued, or a 422 on `query.cursor`: a forged one never reaches a query. */
export function decodeCursor(cursor: string | undefined): PageCursor | undefined {
  if (cursor === undefined) return undefined;
  let decoded: PageCursor | undefined;
  try {
    decoded = parseCursor(cursor);
  } catch {
    decoded = undefined;
  }
  if (!decoded) throw new ValidationError([{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'invalid_cursor' }]);
  return decoded;
}

/** Lists fetch `limit + 1` rows (`keyset` in src/db/keyset.ts); the extra one only says there is a next page. */
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
