import type { Queryable } from '../pool.js';
import { newId } from '../../ids.js';

export interface User {
  id: string;
  subject: string;
  email: string | null;
  name: string | null;
  createdAt: Date;
}

const COLUMNS = 'id, subject, email, name, created_at AS "createdAt"';

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
  props: { subject: string; email: string | null; name: string | null },
): Promise<User> {
  const { rows } = await db.query<User>(
    `INSERT INTO users (id, subject, email, name) VALUES ($1, $2, $3, $4)
     ON CONFLICT (subject) DO UPDATE SET email = EXCLUDED.email, name = EXCLUDED.name, updated_at = now()
       WHERE users.email IS DISTINCT FROM EXCLUDED.email OR users.name IS DISTINCT FROM EXCLUDED.name
     RETURNING ${COLUMNS}`,
    [newId('usr'), props.subject, props.email, props.name],
  );
  if (rows[0]) return rows[0];
  const existing = await db.query<User>(`SELECT ${COLUMNS} FROM users WHERE subject = $1`, [props.subject]);
  return existing.rows[0]!;
}
