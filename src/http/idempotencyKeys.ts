import type { Queryable } from '../db/pool.js';

export interface IdempotencyIdentity {
  userId: string;
  livemode: boolean;
  key: string;
  /** The API key or session that sent it (Principal.credential); no other credential gets its answer. */
  credential: string;
}

export interface IdempotencyRecord {
  credential: string;
  requestHash: Buffer;
  state: 'in_flight' | 'completed';
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: Buffer | null;
  /** Seconds until an in-flight request's lease runs out (at least 1): the 409's Retry-After. */
  retryAfterSeconds: number;
}

/** One claim of a key: `token` tells this claim from a later one that took the key over. */
export interface IdempotencyLease {
  token: string;
  seconds: number;
}

export const IDEMPOTENCY_TTL_HOURS = 24;

/**
 * When a key's record (`k`) may be replaced: it expired, or the same request from the same credential
 * died in flight. store_answered_idempotency_key (migrations/) applies the same rule.
 */
const TAKEN_OVER = `k.expires_at <= now()
        OR (k.state = 'in_flight' AND k.locked_until <= now() AND k.request_hash = EXCLUDED.request_hash
            AND k.credential = EXCLUDED.credential)`;

/**
 * Claims the key for this request in one statement. It succeeds for a new key, an expired one, or
 * one whose earlier identical request died in flight or failed unreleased (its lease ran out).
 * Otherwise the existing record is returned for the caller to replay or refuse. A named statement,
 * prepared once per connection: planning this upsert took longer than running it (docs/bench.md).
 */
export async function claimIdempotencyKey(
  db: Queryable,
  props: IdempotencyIdentity & { requestHash: Buffer; method: string; path: string; lease: IdempotencyLease },
): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
  const params = [
    props.userId, props.livemode, props.key, props.requestHash, props.method, props.path,
    props.lease.seconds, props.credential, IDEMPOTENCY_TTL_HOURS, props.lease.token,
  ];
  const { rowCount } = await db.query({
    name: 'idempotency-claim',
    text: `INSERT INTO idempotency_keys AS k (user_id, livemode, key, request_hash, method, path, state, locked_until, expires_at, credential, lease_token)
     VALUES ($1, $2, $3, $4, $5, $6, 'in_flight', now() + make_interval(secs => $7), now() + make_interval(hours => $9), $8, $10)
     ON CONFLICT (user_id, livemode, key) DO UPDATE SET
       request_hash = EXCLUDED.request_hash, method = EXCLUDED.method, path = EXCLUDED.path, state = 'in_flight',
       locked_until = EXCLUDED.locked_until, response_status = NULL, response_headers = NULL, response_body = NULL,
       created_at = now(), expires_at = EXCLUDED.expires_at, credential = EXCLUDED.credential, lease_token = EXCLUDED.lease_token
     WHERE ${TAKEN_OVER}`,
    values: params,
  });
  if (rowCount === 1) return { claimed: true };
  // Purged between the two statements: treat as in use, the client retries.
  return { claimed: false, existing: (await readIdempotencyKey(db, props)) ?? inUse(props) };
}

function inUse(props: { credential: string; requestHash: Buffer }): IdempotencyRecord {
  return {
    credential: props.credential,
    requestHash: props.requestHash,
    state: 'in_flight',
    responseStatus: null,
    responseHeaders: null,
    responseBody: null,
    retryAfterSeconds: 1,
  };
}

export async function readIdempotencyKey(db: Queryable, identity: IdempotencyIdentity): Promise<IdempotencyRecord | undefined> {
  const { rows } = await db.query<IdempotencyRecord>({
    name: 'idempotency-read',
    text: `SELECT credential, request_hash AS "requestHash", state, response_status AS "responseStatus",
       response_headers AS "responseHeaders", response_body AS "responseBody",
       GREATEST(1, CEIL(EXTRACT(EPOCH FROM locked_until - now())))::int AS "retryAfterSeconds"
     FROM idempotency_keys WHERE user_id = $1 AND livemode = $2 AND key = $3 AND expires_at > now()`,
    values: [identity.userId, identity.livemode, identity.key],
  });
  return rows[0];
}

type AnsweredKey = IdempotencyIdentity & { requestHash: Buffer; method: string; path: string; lease: IdempotencyLease };
type StoredResponse = { status: number; headers: Record<string, string>; body: Buffer };

/** SQLSTATE of store_answered_idempotency_key when the key is another request's. */
const KEY_IS_ANOTHER_REQUESTS = 'IK001';

/** Thrown by storeAnsweredIdempotencyKeyAndCommit when the key is another request's: its transaction is aborted. */
export class IdempotencyKeyIsAnotherRequests extends Error {
  constructor() {
    super('The Idempotency-Key is another request’s');
  }
}

function isKeyAnotherRequests(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === KEY_IS_ANOTHER_REQUESTS;
}

/** The record store_answered_idempotency_key takes (migrations/1765100000000_idempotency_store_answered_function.sql). */
function answeredRecord(props: AnsweredKey, response: StoredResponse): string {
  return JSON.stringify({
    user_id: props.userId,
    livemode: props.livemode,
    key: props.key,
    request_hash: props.requestHash.toString('base64'),
    method: props.method,
    path: props.path,
    credential: props.credential,
    ttl_hours: IDEMPOTENCY_TTL_HOURS,
    lease_token: props.lease.token,
    status: response.status,
    headers: response.headers,
    body: response.body.toString('base64'),
  });
}

/**
 * Stores a request's answer as its key's record (store_answered_idempotency_key), committing on its
 * own: false, and nothing written, when the key is another request's. That is so when its record
 * exists and may not be taken over (as for a claim), and while another transaction is storing it.
 */
export async function insertAnsweredIdempotencyKey(db: Queryable, props: AnsweredKey, response: StoredResponse): Promise<boolean> {
  try {
    await db.query({ name: 'idempotency-store-answered', text: 'SELECT store_answered_idempotency_key($1::jsonb)', values: [answeredRecord(props, response)] });
    return true;
  } catch (err) {
    if (isKeyAnotherRequests(err)) return false;
    throw err;
  }
}

/**
 * Stores a request's answer as its key's record in the transaction `tx` that made the effect it
 * answers for, and commits that transaction, in one round trip (idempotencyAtCommit.ts): the call
 * and the COMMIT go as one query. When the key is another request's, the call fails, PostgreSQL
 * skips the COMMIT, and this throws IdempotencyKeyIsAnotherRequests with the transaction aborted.
 * A query of several statements takes no parameters, so the record is written into it as
 * hexadecimal: nothing in the record can change the statement.
 */
export async function storeAnsweredIdempotencyKeyAndCommit(tx: Queryable, props: AnsweredKey, response: StoredResponse): Promise<void> {
  const record = Buffer.from(answeredRecord(props, response), 'utf8').toString('hex');
  try {
    await tx.query(`SELECT store_answered_idempotency_key(convert_from(decode('${record}', 'hex'), 'UTF8')::jsonb); COMMIT`);
  } catch (err) {
    if (isKeyAnotherRequests(err)) throw new IdempotencyKeyIsAnotherRequests();
    throw err;
  }
}

/** Stores the answer, unless a retry took the key over after this claim's lease ran out (the retry answers). */
export async function completeIdempotencyKey(
  db: Queryable,
  identity: IdempotencyIdentity,
  lease: IdempotencyLease,
  response: { status: number; headers: Record<string, string>; body: Buffer },
): Promise<void> {
  await db.query({
    name: 'idempotency-complete',
    text: `UPDATE idempotency_keys SET state = 'completed', response_status = $4, response_headers = $5, response_body = $6
     WHERE user_id = $1 AND livemode = $2 AND key = $3 AND credential = $7 AND lease_token = $8`,
    values: [identity.userId, identity.livemode, identity.key, response.status, JSON.stringify(response.headers), response.body, identity.credential, lease.token],
  });
}

/** Pushes a running request's lease on; false when the key is no longer this claim's (taken over, or done). */
export async function renewIdempotencyLease(db: Queryable, identity: IdempotencyIdentity, lease: IdempotencyLease): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE idempotency_keys SET locked_until = now() + make_interval(secs => $4)
     WHERE user_id = $1 AND livemode = $2 AND key = $3 AND lease_token = $5 AND state = 'in_flight'`,
    [identity.userId, identity.livemode, identity.key, lease.seconds, lease.token],
  );
  return rowCount === 1;
}

/**
 * Forgets a claim whose answer is not to be kept (5xx, 401, 403, 429), so a retry runs again. With
 * `answered`, also when this claim's own transaction stored an answer that the request did not end with.
 */
export async function releaseIdempotencyKey(db: Queryable, identity: IdempotencyIdentity, lease: IdempotencyLease, claim: { answered: boolean }): Promise<void> {
  await db.query(
    `DELETE FROM idempotency_keys WHERE user_id = $1 AND livemode = $2 AND key = $3 AND lease_token = $4 AND (state = 'in_flight' OR $5)`,
    [identity.userId, identity.livemode, identity.key, lease.token, claim.answered],
  );
}

export async function purgeExpiredIdempotencyKeys(db: Queryable): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM idempotency_keys WHERE expires_at <= now()');
  return rowCount ?? 0;
}
