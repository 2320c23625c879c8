import type { Queryable } from '../db/pool.js';
import { keyset, type PageRequest } from '../db/keyset.js';
import { SqlParams } from '../db/sqlParams.js';
import type { KeyMode } from './apiKeyFormat.js';

export type ApiKeyStatus = 'active' | 'revoked' | 'deleted';

export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  scopes: string[];
  mode: KeyMode;
  prefix: string;
  status: ApiKeyStatus;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  revokedReason: string | null;
  revokedSourceUrl: string | null;
  /** The most the key's operations may reserve in a calendar month (UTC); null: no limit. */
  monthlySpendLimit: number | null;
  /** Canonical CIDRs the key may be used from; empty: anywhere. */
  allowedIps: string[];
  /** Exact names or `*.suffix` patterns the key may act on; empty: any domain. */
  allowedDomains: string[];
  /**
   * `<name>:<TYPE>` patterns of the only DNS records the key may change (src/auth/recordPatterns.ts);
   * empty: no such restriction. A key with some may call nothing but the routes that act on records.
   */
  allowedRecords: string[];
  /** The key that created this one; null when its owner's session did. */
  parentKeyId: string | null;
}

/** What a key's owner may limit it to, set at creation or with PATCH. */
export type ApiKeyGuards = Pick<ApiKeyRecord, 'monthlySpendLimit' | 'allowedIps' | 'allowedDomains' | 'allowedRecords'>;

// The hash never leaves this module: no caller can present it by accident.
const COLUMNS = `id, user_id AS "userId", name, scopes, mode, prefix, status, created_at AS "createdAt",
  last_used_at AS "lastUsedAt", revoked_at AS "revokedAt", revoked_reason AS "revokedReason",
  revoked_source_url AS "revokedSourceUrl", monthly_spend_limit::float8 AS "monthlySpendLimit",
  allowed_ips AS "allowedIps", allowed_domains AS "allowedDomains", allowed_records AS "allowedRecords",
  parent_key_id AS "parentKeyId"`;

/** A new key; with `parentKeyId`, it joins the lineage of the key that created it (lockApiKeyLineage). */
export async function insertApiKey(
  db: Queryable,
  key: { id: string; userId: string; name: string; scopes: string[]; mode: KeyMode; prefix: string; secretHash: Buffer; parentKeyId?: string | null } & Partial<ApiKeyGuards>,
): Promise<ApiKeyRecord> {
  const { rows } = await db.query<ApiKeyRecord>(
    `INSERT INTO api_keys (id, user_id, name, scopes, mode, prefix, secret_hash, monthly_spend_limit, allowed_ips, allowed_domains, allowed_records, parent_key_id, lineage)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
       COALESCE((SELECT p.lineage FROM api_keys p WHERE p.id = $12), '{}'::text[]) || $1::text)
     RETURNING ${COLUMNS}`,
    [
      key.id,
      key.userId,
      key.name,
      key.scopes,
      key.mode,
      key.prefix,
      key.secretHash,
      key.monthlySpendLimit ?? null,
      key.allowedIps ?? [],
      key.allowedDomains ?? [],
      key.allowedRecords ?? [],
      key.parentKeyId ?? null,
    ],
  );
  return rows[0]!;
}

export async function findApiKeyByHash(db: Queryable, secretHash: Buffer): Promise<ApiKeyRecord | undefined> {
  const { rows } = await db.query<ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys WHERE secret_hash = $1`, [secretHash]);
  return rows[0];
}

export async function findApiKeyById(db: Queryable, id: string): Promise<ApiKeyRecord | undefined> {
  const { rows } = await db.query<ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
  return rows[0];
}

/** Several keys by hash in one query (leak reports carry batches); the result is keyed by hash hex. */
export async function findApiKeysByHashes(db: Queryable, secretHashes: Buffer[]): Promise<Map<string, ApiKeyRecord>> {
  if (secretHashes.length === 0) return new Map();
  const { rows } = await db.query<ApiKeyRecord & { secretHashHex: string }>(
    `SELECT ${COLUMNS}, encode(secret_hash, 'hex') AS "secretHashHex" FROM api_keys WHERE secret_hash = ANY($1::bytea[])`,
    [secretHashes],
  );
  return new Map(rows.map(({ secretHashHex, ...record }) => [secretHashHex, record]));
}

export async function findApiKeyOfUser(db: Queryable, userId: string, id: string): Promise<ApiKeyRecord | undefined> {
  const { rows } = await db.query<ApiKeyRecord>(
    `SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND user_id = $2 AND status <> 'deleted'`,
    [id, userId],
  );
  return rows[0];
}

export async function listApiKeysOfUser(
  db: Queryable,
  props: { userId: string; mode: KeyMode | undefined } & PageRequest,
): Promise<ApiKeyRecord[]> {
  const p = new SqlParams();
  const mode = p.add(props.mode ?? null);
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  const { rows } = await db.query<ApiKeyRecord>(
    `SELECT ${COLUMNS} FROM api_keys
     WHERE user_id = ${p.add(props.userId)} AND status <> 'deleted' AND (${mode}::text IS NULL OR mode = ${mode}) AND ${page.condition}
     ${page.tail}`,
    p.values,
  );
  return rows;
}

export async function markApiKeyDeleted(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE api_keys SET status = 'deleted', deleted_at = now() WHERE id = $1 AND status <> 'deleted'`,
    [id],
  );
  return rowCount === 1;
}

/** Revokes an active key; returns undefined when it was not active (already revoked or deleted). */
export async function markApiKeyRevoked(
  db: Queryable,
  props: { id: string; reason: string; sourceUrl: string | null },
): Promise<ApiKeyRecord | undefined> {
  const { rows } = await db.query<ApiKeyRecord>(
    `UPDATE api_keys SET status = 'revoked', revoked_at = now(), revoked_reason = $2, revoked_source_url = $3
     WHERE id = $1 AND status = 'active' RETURNING ${COLUMNS}`,
    [props.id, props.reason, props.sourceUrl],
  );
  return rows[0];
}

/** Writes buffered last-use times in one statement; never moves a time backwards. */
export async function recordApiKeysLastUsed(db: Queryable, uses: Map<string, Date>): Promise<void> {
  if (uses.size === 0) return;
  await db.query(
    `UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, u.used_at)
     FROM unnest($1::text[], $2::timestamptz[]) AS u(id, used_at) WHERE k.id = u.id`,
    [[...uses.keys()], [...uses.values()]],
  );
}

/**
 * The user's active keys, counted under a per-user transaction lock so two concurrent creations
 * cannot both see room for one more.
 */
export async function lockAndCountActiveApiKeys(db: Queryable, userId: string): Promise<number> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('api_keys:' || $1))`, [userId]);
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND status = 'active'`,
    [userId],
  );
  return rows[0]!.n;
}

/** A key of a lineage whose monthly spending limit binds the keys below it (and itself). */
export interface LineageLimit {
  keyId: string;
  limit: number;
}

/** What a reservation by a key must respect: the limits along its lineage, from the root down to the key. */
export interface KeyLineageLimits {
  rootKeyId: string;
  limits: LineageLimit[];
}

/**
 * The key `keyParam` names, each key of its lineage (the key and every key above it) with its monthly
 * spending limit, taking the lineage's transaction lock (on its root) as it is read. Rows in no order.
 * One SELECT, for lockApiKeyLineage and for a reservation that locks and reserves in one statement
 * (reserveFromUnlimitedBalance). The limits are read in the lock's statement, so possibly from before a
 * concurrent change of them; what the lock orders is the spending read after it, in later statements.
 */
export function lockedLineageSql(keyParam: string): string {
  return `SELECT k.lineage[1] AS "rootKeyId", a.id AS "keyId", a.monthly_spend_limit::float8 AS "limit"
     FROM api_keys k
     CROSS JOIN LATERAL pg_advisory_xact_lock(hashtext('api_key_spending:' || k.lineage[1])) AS locked
     CROSS JOIN LATERAL unnest(k.lineage) WITH ORDINALITY AS member(id, depth)
     JOIN api_keys a ON a.id = member.id
     WHERE k.id = ${keyParam}`;
}

/**
 * Serialises the reservations of every key of one lineage (a transaction lock on its root, taken
 * before the balance row's) and reads the spending limits of the key and of each key above it, so
 * keys created with a limited key, concurrently and in several organisations, cannot together pass it.
 */
export async function lockApiKeyLineage(tx: Queryable, id: string): Promise<KeyLineageLimits | undefined> {
  const { rows } = await tx.query<{ rootKeyId: string; keyId: string; limit: number | null }>(`${lockedLineageSql('$1')} ORDER BY member.depth`, [id]);
  if (rows.length === 0) return undefined;
  const limits = rows.flatMap(({ keyId, limit }) => (limit === null ? [] : [{ keyId, limit }]));
  return { rootKeyId: rows[0]!.rootKeyId, limits };
}

/** Changes the guards of a key that is not deleted; undefined when there is none. */
export async function updateApiKeyGuards(db: Queryable, id: string, guards: Partial<ApiKeyGuards>): Promise<ApiKeyRecord | undefined> {
  const columns: Record<keyof ApiKeyGuards, string> = {
    monthlySpendLimit: 'monthly_spend_limit',
    allowedIps: 'allowed_ips',
    allowedDomains: 'allowed_domains',
    allowedRecords: 'allowed_records',
  };
  const entries = (Object.keys(columns) as (keyof ApiKeyGuards)[]).filter((field) => guards[field] !== undefined);
  const sets = entries.map((field, i) => `${columns[field]} = $${i + 2}`);
  const { rows } = await db.query<ApiKeyRecord>(
    `UPDATE api_keys SET ${sets.length ? sets.join(', ') : 'id = id'} WHERE id = $1 AND status <> 'deleted' RETURNING ${COLUMNS}`,
    [id, ...entries.map((field) => guards[field])],
  );
  return rows[0];
}
