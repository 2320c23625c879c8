import type { RouterContext } from '@koa/router';
import type { Logger } from '../logger.js';
import type { Organization } from '../auth/organizations.js';
import type { OrgRole } from '../auth/memberships.js';
import type { IdempotencyIdentity } from './idempotencyKeys.js';
import type { Queryable } from '../db/pool.js';

/** What every request carries through the middleware chain. Later layers add to it. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** The request body exactly as received, for routes that read a body. */
  rawBody?: Buffer;
  /** The parsed JSON body, for routes that read a body. */
  body?: unknown;
  /** The organisation of an `/orgs/{org_oid}/…` path and the caller's role in it. */
  org?: { org: Organization; role: OrgRole };
  /**
   * Set by the idempotency layer when the request carries an Idempotency-Key, with the hash of the
   * request it names. Handlers that start durable work derive its id from this (idempotentId), so a
   * retry after a crash finds the work instead of repeating it.
   */
  idempotency?: IdempotencyIdentity & { requestHash: Buffer };
  /**
   * Set with `idempotency`: stores the answer in a handler's own transaction and commits it, so it
   * commits with the effect it answers for (answerInTransaction in idempotency.ts), and learns once
   * that transaction has. On a route declared `answersInTransaction`, storing it also claims the key
   * (idempotencyAtCommit.ts).
   */
  idempotentAnswer?: {
    storeAndCommit(tx: Queryable, answer: IdempotentAnswer): Promise<void>;
    committed(answer: IdempotentAnswer): void;
  };
}

/** A handler's answer: status, the headers a replay repeats (`location`, `etag`), and the JSON body. */
export interface IdempotentAnswer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

export type AppContext = RouterContext<AppState>;
