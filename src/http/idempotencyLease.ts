import { randomUUID } from 'node:crypto';
import type { Db } from '../db/pool.js';
import { apiErrorFromPg } from '../db/pgErrors.js';
import {
  releaseIdempotencyKey,
  renewIdempotencyLease,
  type IdempotencyIdentity,
  type IdempotencyLease,
} from './idempotencyKeys.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * How long a claim holds its key unless renewed. A process that dies, or a request whose failure
 * could not be released because the database was away, frees its key this long after its last
 * renewal at most: within the 10 s that clients are promised.
 */
export const LEASE_SECONDS = 8;
/** A running request renews its lease this often, so a renewal may be late twice before the lease runs out. */
export const LEASE_RENEWAL_MS = 2_000;

export function newLease(): IdempotencyLease {
  return { token: randomUUID(), seconds: LEASE_SECONDS };
}

/** 409 while the key's first request still runs; `Retry-After` is when its lease runs out unless renewed. */
export class IdempotencyKeyInUseError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still in progress; retry shortly', {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

/**
 * Renews the lease while the request runs (registrations can wait on Temporal longer than a lease);
 * the returned function stops it. Only requests that outlast one renewal period cost a write. A
 * renewal that fails is tried again on the next tick; if none gets through, the lease runs out as a
 * crashed process's would.
 */
export function keepLease(deps: { db: Db; log: Logger }, identity: IdempotencyIdentity, lease: IdempotencyLease): () => void {
  let renewing = false;
  const timer = setInterval(() => {
    if (renewing) return;
    renewing = true;
    renewIdempotencyLease(deps.db, identity, lease)
      .then((held) => {
        // Taken over by a retry after a renewal came too late, or already answered: nothing left to hold.
        if (!held) clearInterval(timer);
      })
      .catch((err: unknown) => deps.log.warn({ err }, 'idempotency lease not renewed'))
      .finally(() => {
        renewing = false;
      });
  }, LEASE_RENEWAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Frees the key of an answer that is not kept (5xx, 401, 403, 429) so a retry runs again, also when
 * the handler's transaction had stored an answer that a later failure replaced (`answered`). When the
 * database is what failed, the key cannot be freed now: the answer stands and the lease runs out.
 */
export async function releaseLease(db: Db, identity: IdempotencyIdentity, lease: IdempotencyLease, claim: { answered: boolean }): Promise<void> {
  try {
    await releaseIdempotencyKey(db, identity, lease, claim);
  } catch (err) {
    if (apiErrorFromPg(err)?.code !== 'DATABASE_UNAVAILABLE') throw err;
  }
}
