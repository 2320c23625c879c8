import { createHash } from 'node:crypto';
import { requestPrincipal } from '../auth/requestPrincipal.js';
import { ConflictError, ValidationError } from '../errors.js';
import { recordIdempotency } from '../metrics/record.js';
import type { AppContext, IdempotentAnswer } from './context.js';
import { isDryRun } from './dryRun.js';
import { openResponseBody, sealResponseBody } from './idempotencyCrypto.js';
import type { Db } from '../db/pool.js';
import { completeIdempotencyKey, type IdempotencyIdentity, type IdempotencyLease, type IdempotencyRecord } from './idempotencyKeys.js';
import { IdempotencyKeyInUseError, releaseLease } from './idempotencyLease.js';

/** What both idempotency layers (idempotency.ts, idempotencyAtCommit.ts) share: the request, its answer, a replay. */

const KEY_FORMAT = /^[\x20-\x7E]{1,255}$/;
const REPLAYED_HEADERS = ['location', 'etag'];

/** A request under an Idempotency-Key: who sent it, with which key, and the hash of what it asks. */
export interface IdempotentRequest {
  identity: IdempotencyIdentity;
  requestHash: Buffer;
}

/**
 * The request's Idempotency-Key, or undefined when it has none. An empty header is a client mistake,
 * not "no key": it is refused rather than run unprotected. A dry run changes nothing, so there is
 * nothing to replay: it is answered afresh every time.
 */
export function idempotentRequest(ctx: AppContext): IdempotentRequest | undefined {
  if (ctx.req.headers['idempotency-key'] === undefined || isDryRun(ctx)) return undefined;
  const key = ctx.get('idempotency-key');
  if (!KEY_FORMAT.test(key)) {
    throw new ValidationError([
      { loc: ['header', 'idempotency-key'], msg: 'Must be 1 to 255 printable ASCII characters', type: 'idempotency_key_invalid' },
    ]);
  }
  const principal = requestPrincipal(ctx.state);
  const identity = { userId: principal.user.id, livemode: principal.livemode, key, credential: principal.credential };
  return { identity, requestHash: requestHash(ctx.method, ctx.url, ctx.state.body) };
}

/** Answers worth replaying: everything but server faults, auth failures and rate limiting. */
export function storable(status: number): boolean {
  return status < 500 && status !== 401 && status !== 403 && status !== 429;
}

/** JSON with sorted keys, so the same body sent with its fields in another order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? '';
}

function requestHash(method: string, url: string, body: unknown): Buffer {
  return createHash('sha256').update(`${method} ${url}\n${canonicalJson(body)}`).digest();
}

/** An answer as stored: its status, the replayed headers, and its body as JSON bytes. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function storedForm(answer: IdempotentAnswer): StoredAnswer {
  const given = Object.entries(answer.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value] as const);
  const headers = Object.fromEntries(given.filter(([name, value]) => REPLAYED_HEADERS.includes(name) && value !== ''));
  return { status: answer.status, headers, body: Buffer.from(answer.body == null ? '' : JSON.stringify(answer.body), 'utf8') };
}

/** The answer the request is about to send, as it would be stored. */
export function answerSent(ctx: AppContext): StoredAnswer {
  return storedForm({
    status: ctx.status,
    headers: Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => (ctx.response.get(name) ? [[name, ctx.response.get(name)]] : []))),
    body: ctx.body,
  });
}

export function fingerprint(stored: StoredAnswer): string {
  return JSON.stringify([stored.status, stored.headers, stored.body.toString('utf8')]);
}

/** The answer with its body sealed for this caller's request alone (idempotencyCrypto.ts). */
export function sealed(secret: string, identity: IdempotencyIdentity, stored: StoredAnswer): StoredAnswer {
  return { ...stored, body: sealResponseBody(secret, identity, stored.body) };
}

/**
 * Answers from the key's record made by another request: 409 IDEMPOTENCY_KEY_REUSED for another
 * credential or another request, 409 IDEMPOTENCY_KEY_IN_USE while it runs, else its stored answer
 * replayed with `Idempotent-Replayed: true`.
 */
export function answerFromRecord(ctx: AppContext, secret: string, request: IdempotentRequest, existing: IdempotencyRecord): void {
  const { identity } = request;
  // Checked first, and before anything is decrypted: another credential of the same user (say a
  // narrower key that learnt the key and body) must never receive this answer.
  if (existing.credential !== identity.credential) {
    recordIdempotency('conflict_reused');
    throw new ConflictError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used by another API key or session');
  }
  if (!existing.requestHash.equals(request.requestHash)) {
    recordIdempotency('conflict_reused');
    throw new ConflictError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request');
  }
  if (existing.state === 'in_flight' || existing.responseStatus === null) {
    recordIdempotency('conflict_in_use');
    throw new IdempotencyKeyInUseError(existing.retryAfterSeconds);
  }
  const body = existing.responseBody ? openResponseBody(secret, identity, existing.responseBody) : Buffer.alloc(0);
  ctx.status = existing.responseStatus;
  ctx.set(existing.responseHeaders ?? {});
  ctx.set('Idempotent-Replayed', 'true');
  recordIdempotency('replayed');
  if (body.length > 0) ctx.body = JSON.parse(body.toString('utf8')) as unknown;
}

/**
 * Once the handler has answered, for a request that holds its key: an answer not kept (5xx, 401,
 * 403, 429) frees the key, removing an answer the handler's transaction had stored (`committed`, its
 * fingerprint); any other is stored, unless it is the one that transaction already stored.
 *
 * An answer stored here, after its effect committed, goes through the claims' pool: its commit does
 * not wait for the disk. Lost in a database crash, it is what an api crash before storing it would
 * lose, and its retry runs the handler again, which finds its effect by its derived ids (idempotentId,
 * beginOperation) instead of repeating it (docs/operations.md).
 */
export async function keepAnswerSent(
  ctx: AppContext,
  deps: { db: Db; claimsDb: Db; keyHashSecret: string },
  held: { identity: IdempotencyIdentity; lease: IdempotencyLease; committed: string | undefined },
): Promise<void> {
  const { identity, lease } = held;
  if (!storable(ctx.status)) {
    await releaseLease(deps.db, identity, lease, { answered: held.committed !== undefined });
    return;
  }
  const stored = answerSent(ctx);
  if (held.committed === fingerprint(stored)) return;
  await completeIdempotencyKey(deps.claimsDb, identity, lease, sealed(deps.keyHashSecret, identity, stored));
}
