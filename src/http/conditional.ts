import type { Context } from 'koa';
import { z } from 'zod';

/**
 * Optimistic concurrency for versioned resources (contacts, DNS records, domains): the ETag is the
 * quoted version, and `If-Match` on PATCH and DELETE names the version the client last saw.
 */
const IF_MATCH = /^(?:\*|"([1-9][0-9]{0,8})")$/;

export const IfMatchHeader = z.object({
  'if-match': z
    .string()
    .regex(IF_MATCH, 'Must be "*" or one ETag as returned by this API, e.g. "3" (with the quotes)')
    .optional()
    .transform((value) => (value === undefined ? undefined : expectedVersion(value)))
    .describe(
      'The ETag of the version you last saw, e.g. `"3"`. If the resource has changed since, the answer is ' +
        '409 `VERSION_MISMATCH` and nothing is changed. `*` or no header: no check.',
    ),
});

/** The version an `If-Match` value names; undefined for `*`. The value has matched IF_MATCH. */
function expectedVersion(ifMatch: string): number | undefined {
  const digits = IF_MATCH.exec(ifMatch)?.[1];
  return digits === undefined ? undefined : Number(digits);
}

export function etagOf(version: number): string {
  return `"${version}"`;
}

export function setETag(ctx: Pick<Context, 'set'>, version: number): void {
  ctx.set('ETag', etagOf(version));
}

export const ETagHeaders = z.object({
  ETag: z.string().describe('The version in quotes, e.g. `"3"`; send it back as `If-Match` to update or delete safely'),
});

export const CreatedHeaders = ETagHeaders.extend({
  Location: z.string().describe('Path of the new resource'),
});
