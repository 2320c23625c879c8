import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, type Mode } from '../../db/modeScope.js';
import type { Plan } from '../../auth/organizations.js';

export interface EmailForward {
  id: string;
  domainId: string;
  livemode: boolean;
  /** Lower case; `*` is the catch-all. */
  localPart: string;
  recipients: string[];
  createdAt: Date;
}

const forwards = new ModeScopedTable<EmailForward>(
  'email_forwards',
  'id, domain_id AS "domainId", livemode, local_part AS "localPart", recipients, created_at AS "createdAt"',
);

/** A domain's forwards, newest first (a domain holds at most its plan's: mailLimits.ts). */
export function listEmailForwards(db: Queryable, mode: Mode, domainId: string): Promise<EmailForward[]> {
  return forwards.select(db, mode, 'domain_id = $2', [domainId], 'ORDER BY created_at DESC, id DESC');
}

export function findEmailForward(db: Queryable, mode: Mode, props: { domainId: string; id: string }): Promise<EmailForward | undefined> {
  return forwards.findOne(db, mode, 'domain_id = $2 AND id = $3', [props.domainId, props.id]);
}

export function countEmailForwards(db: Queryable, mode: Mode, domainId: string): Promise<number> {
  return forwards.count(db, mode, 'domain_id = $2', [domainId]);
}

/** Creates and removals of one domain's forwards run one after the other until their transaction ends. */
export async function lockEmailForwardsOf(tx: Queryable, domainId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('email_forwards:' || $1, 0))`, [domainId]);
}

/** Undefined when the domain has a forward of that local part already. */
export function insertEmailForward(tx: Queryable, mode: Mode, row: { id: string; domainId: string; localPart: string; recipients: string[] }): Promise<EmailForward | undefined> {
  return forwards.insertIfAbsent(tx, mode, { id: row.id, domain_id: row.domainId, local_part: row.localPart, recipients: row.recipients });
}

export async function deleteEmailForward(tx: Queryable, mode: Mode, props: { domainId: string; id: string }): Promise<boolean> {
  return (await forwards.delete(tx, mode, 'domain_id = $2 AND id = $3', [props.domainId, props.id])) > 0;
}

/** The plan of the organisation whose active domain of that name forwards mail in that mode; asked by the policy service at each RCPT. */
export async function planOfForwardingDomain(db: Queryable, livemode: boolean, domain: string): Promise<Plan | undefined> {
  const { rows } = await db.query<{ plan: Plan }>(
    `SELECT o.plan FROM domains d JOIN organizations o ON o.id = d.org_id
     WHERE d.name = $1 AND d.livemode = $2 AND d.status = 'active'
       AND EXISTS (SELECT 1 FROM email_forwards f WHERE f.domain_id = d.id)
     LIMIT 1`,
    [domain, livemode],
  );
  return rows[0]?.plan;
}
