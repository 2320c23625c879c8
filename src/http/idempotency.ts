import { createHash } from 'node:crypto';
import type { RouterMiddleware } from '@koa/router';
import type pg from 'pg';
import { withTransaction, type Db } from '../db/pool.js';
import { claimIdempotencyKey, completeIdempotencyKey, type IdempotencyIdentity } from './idempotencyKeys.js';
import { requirePrincipal } from '../auth/authorize.js';
import { ConflictError, ValidationError } from '../errors.js';
import type { AppContext, AppState, IdempotentAnswer } from './context.js';
import { isDryRun } from './dryRun.js';
import { renderError } from './errorHandler.js';
import { openResponseBody, sealResponseBody } from './idempotencyCrypto.js';
import { IdempotencyKeyInUseError, keepLease, newLease, releaseLease } from './idempotencyLease.js';
import { recordIdempotency } from '../metrics/record.js';
import { derivedId, type IdPrefix } from '../ids.js';

const KEY_FORMAT = /^[\x20-\x7E]{1,255}$/;
const REPLAYED_HEADERS = ['location', 'etag'];

/** Answers worth replaying: everything but server faults, auth failures and rate limiting. */
function storable(status: number): boolean {
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

/**
 * `Idempotency-Key` on POST, PATCH and DELETE: the same key and request within 24 hours replays the
 * stored answer (`Idempotent-Replayed: true`) without repeating the action; the same key with another
 * request, or from another API key or session, is 409 IDEMPOTENCY_KEY_REUSED; while the first is
 * still running, 409 IDEMPOTENCY_KEY_IN_USE with Retry-After. The first holds the key by a lease it
 * renews while it runs (idempotencyLease.ts), so a key whose request died or failed is soon free.
 */
export function idempotency(deps: { db: Db; claimsDb: Db; keyHashSecret: string }): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    // An empty header is a client mistake, not "no key": refuse it rather than run unprotected.
    // A dry run changes nothing, so there is nothing to replay: it is answered afresh every time.
    if (ctx.req.headers['idempotency-key'] === undefined || isDryRun(ctx)) {
      await next();
      return;
    }
    const key = ctx.get('idempotency-key');
    if (!KEY_FORMAT.test(key)) {
      throw new ValidationError([
        { loc: ['header', 'idempotency-key'], msg: 'Must be 1 to 255 printable ASCII characters', type: 'idempotency_key_invalid' },
      ]);
    }
    const principal = requirePrincipal(ctx.state);
    const identity: IdempotencyIdentity = { userId: principal.user.id, livemode: principal.livemode, key, credential: principal.credential };
    const hash = requestHash(ctx.method, ctx.url, ctx.state.body);
    const lease = newLease();
    // Its commit does not wait for the disk: whatever it guards commits synchronously after it (src/db/pool.ts).
    const claim = await claimIdempotencyKey(deps.claimsDb, { ...identity, requestHash: hash, method: ctx.method, path: ctx.path, lease });

    if (!claim.claimed) {
      const { existing } = claim;
      // Checked first, and before anything is decrypted: another credential of the same user (say a
      // narrower key that learnt the key and body) must never receive this answer.
      if (existing.credential !== identity.credential) {
        recordIdempotency('conflict_reused');
        throw new ConflictError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used by another API key or session');
      }
      if (!existing.requestHash.equals(hash)) {
        recordIdempotency('conflict_reused');
        throw new ConflictError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request');
      }
      if (existing.state === 'in_flight' || existing.responseStatus === null) {
        recordIdempotency('conflict_in_use');
        throw new IdempotencyKeyInUseError(existing.retryAfterSeconds);
      }
      const body = existing.responseBody ? openResponseBody(deps.keyHashSecret, identity, existing.responseBody) : Buffer.alloc(0);
      ctx.status = existing.responseStatus;
      ctx.set(existing.responseHeaders ?? {});
      ctx.set('Idempotent-Replayed', 'true');
      recordIdempotency('replayed');
      if (body.length > 0) ctx.body = JSON.parse(body.toString('utf8')) as unknown;
      return;
    }

    ctx.state.idempotency = { ...identity, requestHash: hash };
    recordIdempotency('first');
    // What a handler's own transaction stored and committed (answerInTransaction), if anything.
    let committedWithEffect: string | undefined;
    ctx.state.idempotentAnswer = {
      storeWithin: async (tx, answer) => {
        const stored = storedForm(answer);
        await completeIdempotencyKey(tx, identity, lease, { ...stored, body: sealResponseBody(deps.keyHashSecret, identity, stored.body) });
      },
      committed: (answer) => {
        committedWithEffect = fingerprint(storedForm(answer));
      },
    };
    const stopRenewing = keepLease({ db: deps.db, log: ctx.state.log }, identity, lease);
    try {
      await next();
    } catch (err) {
      renderError(ctx, err);
    } finally {
      stopRenewing();
    }
    if (!storable(ctx.status)) {
      await releaseLease(deps.db, identity, lease, { answered: committedWithEffect !== undefined });
      return;
    }
    const stored = storedForm({
      status: ctx.status,
      headers: Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => (ctx.response.get(name) ? [[name, ctx.response.get(name)]] : []))),
      body: ctx.body,
    });
    // Already stored by the transaction that made the effect: that commit was the answer's.
    if (committedWithEffect === fingerprint(stored)) return;
    await completeIdempotencyKey(deps.db, identity, lease, { ...stored, body: sealResponseBody(deps.keyHashSecret, identity, stored.body) });
  };
}

/** An answer as stored: its status, the replayed headers, and its body as JSON bytes. */
function storedForm(answer: IdempotentAnswer): { status: number; headers: Record<string, string>; body: Buffer } {
  const given = Object.entries(answer.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value] as const);
  const headers = Object.fromEntries(given.filter(([name, value]) => REPLAYED_HEADERS.includes(name) && value !== ''));
  return { status: answer.status, headers, body: Buffer.from(answer.body == null ? '' : JSON.stringify(answer.body), 'utf8') };
}

function fingerprint(stored: ReturnType<typeof storedForm>): string {
  return JSON.stringify([stored.status, stored.headers, stored.body.toString('utf8')]);
}

/**
 * Runs a handler's writes in one transaction that also stores its answer when the request has an
 * Idempotency-Key, then answers with it: the effect and its stored answer commit together, one
 * commit where the layer would add a second (docs/bench.md). Without a key it is withTransaction.
 */
export async function answerInTransaction(ctx: AppContext, db: Db, work: (tx: pg.PoolClient) => Promise<IdempotentAnswer>): Promise<void> {
  const recorder = ctx.state.idempotentAnswer;
  const answer = await withTransaction(db, async (tx) => {
    const made = await work(tx);
    await recorder?.storeWithin(tx, made);
    return made;
  });
  recorder?.committed(answer);
  ctx.status = answer.status;
  if (answer.headers) ctx.set(answer.headers);
  ctx.body = answer.body;
}

/**
 * The id a request sent again with the same Idempotency-Key derives again (undefined without a key),
 * for a handler whose effect commits before its answer is stored: should the process die in between,
 * the lease runs out and the retry runs the handler again, which finds its effect by this id instead
 * of repeating it. The seed holds the request's hash, so the key reused for another request after its
 * record expired derives other ids. `scope` tells one request's ids apart (an index in a batch).
 */
export function idempotentId(state: Pick<AppState, 'idempotency'>, prefix: IdPrefix, scope: string): string | undefined {
  const request = state.idempotency;
  if (!request) return undefined;
  const seed = [request.credential, request.livemode ? 'live' : 'test', request.key, request.requestHash.toString('hex'), scope];
  return derivedId(prefix, seed.join('\n'));
}
