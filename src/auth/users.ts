import type { Queryable } from '../db/pool.js';
import { newId } from '../ids.js';

export interface User {
  id: string;
  subject: string;
  email: string | null;
  name: string | null;
  /** The identity provider's `email_verified` claim when it sends one; null when it does not. */
  emailVerified: boolean | null;
  createdAt: Date;
}

const COLUMNS = 'id, subject, email, name, email_verified AS "emailVerified", created_at AS "createdAt"';

export async function findUserById(db: Queryable, id: string): Promise<User | undefined> {
  const { rows } = await db.query<User>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
  return rows[0];
}

export async function findUserByEmail(db: Queryable, email: string): Promise<User | undefined> {
  // Several identities may share an e-mail; the earliest is the one people were invited as.
  const { rows } = await db.query<User>(
    `SELECT ${COLUMNS} FROM users WHERE lower(email) = lower($1) ORDER BY created_at LIMIT 1`,
    [email],
  );
  return rows[0];
}

export async function findUserBySubject(db: Queryable, subject: string): Promise<User | undefined> {
  const { rows } = await db.query<User>(`SELECT ${COLUMNS} FROM users WHERE subject = $1`, [subject]);
  return rows[0];
}

/**
 * The user behind a token's `sub`, created on first sight. E-mail and name follow the identity
 * provider's latest claims; the row is written only when one of them changed.
 */
export async function upsertUserBySubject(
  db: Queryable,
  props: { subject: string; email: string | null; name: string | null; emailVerified?: boolean | null },
): Promise<User> {
  const { rows } = await db.query<User>(
    `INSERT INTO users (id, subject, email, name, email_verified) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (subject) DO UPDATE
       SET email = EXCLUDED.email, name = EXCLUDED.name, email_verified = EXCLUDED.email_verified, updated_at = now()
       WHERE users.email IS DISTINCT FROM EXCLUDED.email OR users.name IS DISTINCT FROM EXCLUDED.name
          OR users.email_verified IS DISTINCT FROM EXCLUDED.email_verified
     RETURNING ${COLUMNS}`,
    [newId('usr'), props.subject, props.email, props.name, props.emailVerified ?? null],
  );
  if (rows[0]) return rows[0];
  const existing = await db.query<User>(`SELECT ${COLUMNS} FROM users WHERE subject = $1`, [props.subject]);
  return existing.rows[0]!;
}
