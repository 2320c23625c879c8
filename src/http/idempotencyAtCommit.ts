import type { RouterMiddleware } from '@koa/router';
import type { Db } from '../db/pool.js';
import { recordIdempotency } from '../metrics/record.js';
import type { AppContext, AppState } from './context.js';
import { renderError } from './errorHandler.js';
import {
  answerFromRecord,
  answerSent,
  fingerprint,
  idempotentRequest,
  keepAnswerSent,
  sealed,
  storable,
  storedForm,
  type IdempotentRequest,
} from './idempotencyAnswers.js';
import {
  IdempotencyKeyIsAnotherRequests,
  insertAnsweredIdempotencyKey,
  readIdempotencyKey,
  storeAnsweredIdempotencyKeyAndCommit,
} from './idempotencyKeys.js';
import { IdempotencyKeyInUseError, newLease } from './idempotencyLease.js';

/**
 * The idempotency layer for a route whose every effect commits in one transaction through
 * answerInTransaction (RouteSpec.answersInTransaction). The promises are idempotency.ts's; the key is
 * claimed by the statement that stores the answer, in that transaction, instead of by a committed
 * statement of its own before the handler runs, and that statement goes with the transaction's
 * COMMIT: the layer costs the transaction no round trip of its own (docs/bench.md). A request
 * whose key is already another's finds out at that statement, and its transaction, effect
 * included, rolls back: it replays the stored answer, or answers 409 IDEMPOTENCY_KEY_IN_USE while
 * the other is committing. So of two identical requests sent together, the one whose transaction
 * commits first is the first, and its answer is the other's.
 */
export function idempotencyAtCommit(deps: { db: Db; claimsDb: Db; keyHashSecret: string }): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    const request = idempotentRequest(ctx);
    if (!request) {
      await next();
      return;
    }
    const { identity } = request;
    const lease = newLease();
    const keyProps = { ...identity, requestHash: request.requestHash, method: ctx.method, path: ctx.path, lease };
    let committedWithEffect: string | undefined;
    ctx.state.idempotency = { ...identity, requestHash: request.requestHash };
    ctx.state.idempotentAnswer = {
      storeAndCommit: async (tx, answer) => {
        await storeAnsweredIdempotencyKeyAndCommit(tx, keyProps, sealed(deps.keyHashSecret, identity, storedForm(answer)));
      },
      committed: (answer) => {
        committedWithEffect = fingerprint(storedForm(answer));
      },
    };
    const headersBefore = new Set(Object.keys(ctx.response.headers));
    let anotherRequests = false;
    try {
      await next();
    } catch (err) {
      if (err instanceof IdempotencyKeyIsAnotherRequests) anotherRequests = true;
      else renderError(ctx, err);
    }

    if (committedWithEffect !== undefined) {
      recordIdempotency('first');
      await keepAnswerSent(ctx, deps, { identity, lease, committed: committedWithEffect });
      return;
    }
    // Nothing committed here with its answer. A fault is answered as it is (not stored, as by the
    // other layer); any other answer is this key's only if no other request has stored one.
    if (!anotherRequests) {
      if (!storable(ctx.status)) return;
      // Nothing to guard: its commit need not wait for the disk (keepAnswerSent).
      if (await insertAnsweredIdempotencyKey(deps.claimsDb, keyProps, sealed(deps.keyHashSecret, identity, answerSent(ctx)))) {
        recordIdempotency('first');
        return;
      }
    }
    await answerAsAnotherRequest(ctx, deps, request, headersBefore);
  };
}

/** The key is another request's: its stored answer replaces this one's, or 409 while it is still being stored. */
async function answerAsAnotherRequest(
  ctx: AppContext,
  deps: { db: Db; keyHashSecret: string },
  request: IdempotentRequest,
  headersBefore: Set<string>,
): Promise<void> {
  const existing = await readIdempotencyKey(deps.db, request.identity);
  for (const name of Object.keys(ctx.response.headers)) if (!headersBefore.has(name)) ctx.remove(name);
  ctx.body = undefined;
  if (!existing) {
    // Seen at the store and gone now: another transaction held the key and rolled back, or its record expired.
    recordIdempotency('conflict_in_use');
    throw new IdempotencyKeyInUseError(1);
  }
  answerFromRecord(ctx, deps.keyHashSecret, request, existing);
}
