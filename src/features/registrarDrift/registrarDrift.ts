import type { Domain } from '../domains/index.js';
import type { RegistrarDomain } from '../../registrar/port.js';

import type { DriftKind } from './registrarDrift.contract.js';

export type { DriftKind };

export interface Drift {
  kind: DriftKind;
  name: string;
  /** Ours, when we know the domain. */
  domain?: Pick<Domain, 'id' | 'orgId' | 'status'>;
  ours?: { expiresAt: string | null };
  upstream?: { state: string; expiresAt: string | null; autoRenew: boolean };
}

/** Registries and DNSimple round expiry times differently; a day apart is the same term, a year is not. */
const EXPIRY_TOLERANCE_MS = 24 * 3_600_000;

/**
 * What differs between our live domains and the registrar account (DNSimple's domain states:
 * `registered`, `expired`, `hosted`). `hosted` entries are DNS zones, not registrations, and never
 * count; an active domain of ours must be `registered` upstream. Ours still registering or transferring are known
 * (upstream may already hold them) but only active ones must be upstream.
 */
export function findDrift(ours: Domain[], upstream: RegistrarDomain[]): Drift[] {
  const drift: Drift[] = [];
  const ourByName = new Map(ours.map((d) => [d.name, d]));
  const registrations = upstream.filter((d) => d.state !== 'hosted');
  const upstreamByName = new Map(registrations.map((d) => [d.name.toLowerCase(), d]));
  for (const up of registrations) {
    const name = up.name.toLowerCase();
    const domain = ourByName.get(name);
    const upstreamView = { state: up.state, expiresAt: up.expiresAt, autoRenew: up.autoRenew };
    const ourView = domain ? { domain: { id: domain.id, orgId: domain.orgId, status: domain.status } } : {};
    // The service renews from the customer's balance; a registrar renewing by itself bills the operator unpaid.
    if (up.autoRenew) drift.push({ kind: 'auto_renew_on', name, ...ourView, upstream: upstreamView });
    if (!domain) {
      drift.push({ kind: 'unknown_upstream', name, upstream: upstreamView });
      continue;
    }
    if (domain.status === 'active' && up.state === 'registered' && expiryDiffers(domain.expiresAt, up.expiresAt)) {
      drift.push({ kind: 'expiry_mismatch', name, ...ourView, ours: { expiresAt: domain.expiresAt?.toISOString() ?? null }, upstream: upstreamView });
    }
  }
  for (const domain of ours) {
    const up = upstreamByName.get(domain.name);
    // Absent, or no longer registered there (DNSimple's `expired`).
    if (domain.status === 'active' && up?.state !== 'registered') {
      drift.push({
        kind: 'missing_upstream',
        name: domain.name,
        domain: { id: domain.id, orgId: domain.orgId, status: domain.status },
        ours: { expiresAt: domain.expiresAt?.toISOString() ?? null },
        ...(up ? { upstream: { state: up.state, expiresAt: up.expiresAt, autoRenew: up.autoRenew } } : {}),
      });
    }
  }
  return drift;
}

function expiryDiffers(ours: Date | null, upstream: string | null): boolean {
  if (ours === null || upstream === null) return ours !== upstream;
  return Math.abs(ours.getTime() - Date.parse(upstream)) > EXPIRY_TOLERANCE_MS;
}
