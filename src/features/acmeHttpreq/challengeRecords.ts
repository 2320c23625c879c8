import type { Db } from '../../db/pool.js';
import type { Principal } from '../../auth/principal.js';
import { requireDomainAllowed, requireRecordAllowed } from '../../auth/authorize.js';
import { parseDomainName, type DomainName } from '../../domainName.js';
import { ApiError, NotFoundError } from '../../errors.js';
import { findDomainOfOrgAmong } from '../domains/index.js';
import { applyRecordChanges, type RecordOperation, dnsRecordsAtNames, type DnsRecord, type DnsProviders, TTL_MIN } from '../dns/index.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * One DNS-01 challenge value at a name, added or removed through the record service like any edit
 * (locks, the key's `allowed_records`, PowerDNS, events, audit). Both are idempotent: the TXT RRset
 * at a name holds each value once, so `present` of a value already there and `cleanup` of one gone
 * change nothing; other values at the name (the apex and wildcard challenges of one name, another
 * client's) are never touched.
 */
export interface ChallengeProps {
  db: Db;
  dnsProviders: DnsProviders;
  principal: Principal;
  orgId: string;
  /** Fully qualified, lower case, without the trailing dot. */
  fqdn: string;
  value: string;
  requestId: string;
}

/** Short: resolvers should not hold a challenge longer than the validation that reads it. */
export const CHALLENGE_TTL = TTL_MIN;

interface Located {
  domain: DomainName;
  domainId: string;
  /** Relative to the domain, `@` for its apex. */
  name: string;
}

/**
 * The organisation's domain that holds the name (the longest of its parents it has), and the name within it.
 * A key's `allowed_records` decide first, before anything is read: present and cleanup answer a record
 * the key may not touch the same whether or not the domain or the value is there.
 */
async function locate(props: ChallengeProps): Promise<Located> {
  requireRecordAllowed(props.principal, props.fqdn, 'TXT');
  const labels = props.fqdn.split('.');
  const parents = labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
  const domain = await findDomainOfOrgAmong(props.db, modeOf(props.principal.livemode), props.orgId, parents);
  if (!domain) throw new NotFoundError(`No domain of this organisation holds ${props.fqdn} in this mode`);
  requireDomainAllowed(props.principal, domain.name);
  const parsed = parseDomainName(domain.name);
  if (!parsed.ok) throw new Error(`stored domain name ${domain.name} does not parse`);
  return { domain: parsed.value, domainId: domain.id, name: props.fqdn === domain.name ? '@' : props.fqdn.slice(0, -domain.name.length - 1) };
}

async function valueAt(props: ChallengeProps, at: Located): Promise<DnsRecord | undefined> {
  const records = await dnsRecordsAtNames(props.db, modeOf(props.principal.livemode), { domainId: at.domainId, names: [at.name] });
  return records.find((r) => r.type === 'TXT' && r.content === props.value);
}

function apply(props: ChallengeProps, at: Located, operation: RecordOperation) {
  return applyRecordChanges({
    db: props.db,
    dnsProviders: props.dnsProviders,
    principal: props.principal,
    orgId: props.orgId,
    domain: at.domain,
    operations: [operation],
    shape: 'single',
    requestId: props.requestId,
  });
}

/** Adds the value to the TXT records at the name, unless it is there already; answers the domain that holds it. */
export async function presentChallenge(props: ChallengeProps): Promise<{ domain: string }> {
  const at = await locate(props);
  const done = { domain: at.domain.name };
  if (await valueAt(props, at)) return done;
  try {
    await apply(props, at, { op: 'create', record: { type: 'TXT', name: at.name, content: props.value, ttl: CHALLENGE_TTL, priority: null } });
  } catch (err) {
    // A concurrent present of the same value got there first (checked under the name's lock).
    if (!(err instanceof ApiError && err.code === 'DUPLICATE')) throw err;
  }
  return done;
}

/** Removes that value from the TXT records at the name, if it is there; answers the domain that holds the name. */
export async function cleanupChallenge(props: ChallengeProps): Promise<{ domain: string }> {
  const at = await locate(props);
  const done = { domain: at.domain.name };
  const record = await valueAt(props, at);
  if (!record) return done;
  try {
    await apply(props, at, { op: 'delete', id: record.id, expectedVersion: undefined });
  } catch (err) {
    // A concurrent cleanup removed it first.
    if (!(err instanceof NotFoundError)) throw err;
  }
  return done;
}
