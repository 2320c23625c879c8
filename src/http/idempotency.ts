import type { RouterMiddleware } from '@koa/router';
import type pg from 'pg';
import { withTransaction, type Db } from '../db/pool.js';
import { claimIdempotencyKey, completeIdempotencyKey } from './idempotencyKeys.js';
import type { AppContext, AppState, IdempotentAnswer } from './context.js';
import { renderError } from './errorHandler.js';
import { answerFromRecord, fingerprint, idempotentRequest, keepAnswerSent, sealed, storedForm } from './idempotencyAnswers.js';
import { keepLease, newLease } from './idempotencyLease.js';
import { recordIdempotency } from '../metrics/record.js';
import { derivedId, type IdPrefix } from '../ids.js';

/**
 * `Idempotency-Key` on POST, PATCH and DELETE: the same key and request within 24 hours replays the
 * stored answer (`Idempotent-Replayed: true`) without repeating the action; the same key with another
 * request, or from another API key or session, is 409 IDEMPOTENCY_KEY_REUSED; while the first is
 * still running, 409 IDEMPOTENCY_KEY_IN_USE with Retry-After. The first holds the key by a lease it
 * renews while it runs (idempotencyLease.ts), so a key whose request died or failed is soon free.
 */
export function idempotency(deps: { db: Db; claimsDb: Db; keyHashSecret: string }): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    const request = idempotentRequest(ctx);
    if (!request) {
      await next();
      return;
    }
    const { identity, requestHash } = request;
    const lease = newLease();
    // Its commit does not wait for the disk: whatever it guards commits synchronously after it (src/db/pool.ts).
    const claim = await claimIdempotencyKey(deps.claimsDb, { ...identity, requestHash, method: ctx.method, path: ctx.path, lease });
    if (!claim.claimed) {
      answerFromRecord(ctx, deps.keyHashSecret, request, claim.existing);
      return;
    }

    ctx.state.idempotency = { ...identity, requestHash };
    recordIdempotency('first');
    // What a handler's own transaction stored and committed (answerInTransaction), if anything.
    let committedWithEffect: string | undefined;
    ctx.state.idempotentAnswer = {
      storeAndCommit: async (tx, answer) => {
        await completeIdempotencyKey(tx, identity, lease, sealed(deps.keyHashSecret, identity, storedForm(answer)));
        await tx.query('COMMIT');
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
    await keepAnswerSent(ctx, deps, { identity, lease, committed: committedWithEffect });
  };
}

/**
 * Runs a handler's writes in one transaction that also stores its answer when the request has an
 * Idempotency-Key, then answers with it: the effect and its stored answer commit together, one
 * commit where the layer would add a second (docs/bench.md). On a route declared
 * `answersInTransaction`, that statement also claims the key (idempotencyAtCommit.ts). Without a key
 * it is withTransaction.
 */
export async function answerInTransaction(ctx: AppContext, db: Db, work: (tx: pg.PoolClient) => Promise<IdempotentAnswer>): Promise<void> {
  const recorder = ctx.state.idempotentAnswer;
  const answer = await withTransaction(db, work, recorder && ((tx, made) => recorder.storeAndCommit(tx, made)));
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
