import { describe, expect, it } from 'vitest';
import type { Domain } from '../domains/domains.repository.js';
import type { RegistrarDomain } from '../../registrar/port.js';
import { findDrift } from './registrarDrift.js';

const EXPIRES = '2027-06-05T02:15:00Z';

function ours(name: string, props: Partial<Domain> = {}): Domain {
  return {
    id: `dom_${name}`,
    orgId: 'org_1',
    livemode: true,
    name,
    status: 'active',
    years: 1,
    expiresAt: new Date(EXPIRES),
    autoRenew: false,
    locked: false,
    nameservers: [],
    whoisPrivacy: false,
    registrantContactId: 'ct_1',
    adminContactId: null,
    techContactId: null,
    version: 1,
    clockOffsetDays: 0,
    createdAt: new Date(),
    updatedAt: new Date(),
    ...props,
  };
}

const upstream = (name: string, props: Partial<RegistrarDomain> = {}): RegistrarDomain => ({ name, state: 'registered', autoRenew: false, expiresAt: EXPIRES, ...props });
const kinds = (drift: ReturnType<typeof findDrift>) => drift.map((d) => `${d.kind} ${d.name}`).sort();

describe('registrar drift', () => {
  it('finds nothing when both sides agree, within a day of expiry rounding', () => {
    const nearly = new Date(Date.parse(EXPIRES) + 23 * 3_600_000);
    expect(findDrift([ours('a.com'), ours('b.com', { expiresAt: nearly })], [upstream('a.com'), upstream('b.com')])).toEqual([]);
  });

  it('names each kind of drift', () => {
    const drift = findDrift(
      [ours('renewed.com'), ours('gone.com'), ours('lapsed.com'), ours('auto.com'), ours('pending.com', { status: 'registering', expiresAt: null })],
      [
        upstream('renewed.com', { expiresAt: '2028-06-05T02:15:00Z' }),
        upstream('lapsed.com', { state: 'expired' }),
        upstream('auto.com', { autoRenew: true }),
        upstream('pending.com', { state: 'registered', expiresAt: null }),
        upstream('stranger.com'),
        upstream('zone.com', { state: 'hosted', expiresAt: null }),
      ],
    );
    expect(kinds(drift)).toEqual([
      'auto_renew_on auto.com',
      'expiry_mismatch renewed.com',
      'missing_upstream gone.com',
      'missing_upstream lapsed.com',
      'unknown_upstream stranger.com',
    ]);
    expect(drift.find((d) => d.name === 'renewed.com')).toMatchObject({ domain: { id: 'dom_renewed.com', orgId: 'org_1' }, ours: { expiresAt: '2027-06-05T02:15:00.000Z' } });
  });
});
