import type { Config } from '../../config.js';
import { withTransaction, type Db } from '../../db/pool.js';
import type { Registrars } from '../../registrar/registrars.js';
import { asActivityFailure } from '../../temporal/activityFailures.js';
import { ConflictError } from '../../errors.js';
import { findDomainById, endOperation } from '../domains/index.js';
import { emitEvent } from '../webhooks/index.js';
import { createDnsProviders, type DnsProviders } from './provider/index.js';
import { DnsZoneNotFoundError } from './provider/errors.js';
import type { ZoneSigningKey } from './provider/port.js';
import { claimZone, isServed, ownsZone, zoneHost } from './zones.js';
import { derivedSigningKey } from './provider/synthetic.js';
import { lockZone } from './dnsZones.repository.js';
import { findDnssecZone, updateDnssecZone } from './dnssec.repository.js';
import { presentDnssec, presentDs } from './dnssec.presenter.js';
import { sameDs, type DsRecord } from './dnssecKeys.js';
import type { DnssecResult } from './dnssec.contract.js';
import { modeOf } from '../../db/modeScope.js';

export interface DnssecActivityDeps {
  config: Pick<Config, 'dnsProvider'> & Partial<Pick<Config, 'dnsTestProvider'>>;
  db: Db;
  registrars: Pick<Registrars, 'forMode'>;
  /** Default: built from `config` (src/features/dns/provider/index.ts). */
  dnsProviders?: DnsProviders;
}

interface ZoneRef {
  livemode: boolean;
  domainId: string;
  name: string;
}

/**
 * The side effects of the DNSSEC workflows (src/features/dns/dnssec.workflow.ts). Each is safe to
 * repeat: signing keeps the key a zone has, publishing and withdrawing list the registrar's DS
 * records first, and the ending is written once (endOperation).
 */
export function createDnssecActivities(deps: DnssecActivityDeps) {
  const providers = deps.dnsProviders ?? createDnsProviders(deps.config);
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      throw asActivityFailure(err);
    }
  };

  return {
    /**
     * Signs the domain's zone and keeps its key and DS on the domain's DNSSEC row. The zone is made
     * the domain's own first (created when missing), under the zone's lock, as a record edit does.
     * A test domain whose zone no DNS server serves (no test host, or another organisation's domain
     * of the name holds it) gets the key derived from its name, which signs nothing
     * (docs/api-guide.md, DNSSEC).
     */
    dnssecSignZone(input: ZoneRef): Promise<{ dnskey: string; ds: DsRecord }> {
      return guard(() =>
        withTransaction(deps.db, async (tx) => {
          const mode = modeOf(input.livemode);
          const domain = await findDomainById(tx, mode, input.domainId);
          if (!domain) throw new Error(`domain ${input.domainId} not found`);
          // Never a zone for a registration that ended since the request.
          if (domain.status !== 'active') throw new ConflictError('DOMAIN_STATE_CONFLICT', `${domain.name} is ${domain.status}; DNSSEC is turned on only while a domain is active`);
          const host = zoneHost(providers, input.livemode);
          const served = host ? (await claimZone(tx, host, domain)).served : false;
          if (!served && input.livemode) throw new ConflictError('DOMAIN_STATE_CONFLICT', `The zone of ${domain.name} at the DNS provider belongs to another registration`);
          const key: ZoneSigningKey = host && served ? await host.signZone(domain.name) : derivedSigningKey(domain.name);
          await updateDnssecZone(tx, mode, input.domainId, { status: 'signing', dnskey: key.dnskey, dsRecords: [key.ds] });
          return { dnskey: key.dnskey, ds: key.ds };
        }),
      );
    },

    /** Live mode: the DS at the registrar, unless it is there already. Test mode publishes nothing. */
    dnssecPublishDs(input: { livemode: boolean; name: string; ds: DsRecord }): Promise<{ published: boolean }> {
      return guard(async () => {
        if (!input.livemode) return { published: false };
        const registrar = await deps.registrars.forMode(true);
        const held = await registrar.listDsRecords(input.name);
        if (!held.some((ds) => sameDs(ds, input.ds))) await registrar.addDsRecord(input.name, input.ds);
        return { published: true };
      });
    },

    /**
     * Live mode: every DS the registrar holds for the domain is withdrawn. All of them: once the zone
     * is unsigned, any DS left at the parent would make the domain fail validation.
     */
    dnssecWithdrawDs(input: { livemode: boolean; name: string }): Promise<{ withdrawn: number }> {
      return guard(async () => {
        if (!input.livemode) return { withdrawn: 0 };
        const registrar = await deps.registrars.forMode(true);
        const held = await registrar.listDsRecords(input.name);
        for (const ds of held) await registrar.deleteDsRecord(input.name, ds.id);
        return { withdrawn: held.length };
      });
    },

    /** Removes the zone's keys; a zone that is no longer this domain's (or is gone, or served by no one) is left alone. */
    dnssecUnsignZone(input: ZoneRef): Promise<void> {
      return guard(async () => {
        const host = zoneHost(providers, input.livemode);
        if (!host) return;
        await withTransaction(deps.db, async (tx) => {
          await lockZone(tx, modeOf(input.livemode), input.name);
          if (!(await ownsZone(tx, { id: input.domainId, name: input.name, livemode: input.livemode }))) return;
          try {
            await host.unsignZone(input.name);
          } catch (err) {
            if (!(err instanceof DnsZoneNotFoundError)) throw err;
          }
        });
      });
    },

    /**
     * Ends the operation and sets where DNSSEC now stands, in one transaction with the event
     * (`dnssec.enabled` / `dnssec.disabled` when it succeeded). `status` is the state it ends in:
     * `active` or `off` after success; after a failure, where the zone was left.
     */
    dnssecFinish(input: {
      operationId: string;
      livemode: boolean;
      orgId: string;
      domainId: string;
      name: string;
      status: 'active' | 'off';
      failure?: { code: string; detail: string };
    }): Promise<DnssecResult> {
      return guard(async () => {
        const mode = modeOf(input.livemode);
        const off = input.status === 'off';
        const before = await findDnssecZone(deps.db, mode, input.domainId);
        const result: DnssecResult = { status: input.status, ds_records: off ? [] : (before?.dsRecords ?? []).map(presentDs) };
        await endOperation({
          db: deps.db,
          mode,
          operationId: input.operationId,
          ending: input.failure ? { status: 'failed', error: input.failure } : { status: 'succeeded', result: { ...result } },
          alongside: async (tx) => {
            await updateDnssecZone(tx, mode, input.domainId, { status: input.status, ...(off ? { dsRecords: [], dnskey: null } : {}) });
          },
          onEnded: async (tx) => {
            if (input.failure) return;
            const zone = await findDnssecZone(tx, mode, input.domainId);
            await emitEvent({
              db: tx,
              orgId: input.orgId,
              livemode: input.livemode,
              type: input.status === 'active' ? 'dnssec.enabled' : 'dnssec.disabled',
              object: presentDnssec(input.name, input.livemode, zone, input.status, await isServed(tx, providers, { id: input.domainId, name: input.name, livemode: input.livemode })),
              dedupeSeed: `dnssec|${input.operationId}`,
            });
          },
        });
        return result;
      });
    },
  };
}

export type DnssecActivities = ReturnType<typeof createDnssecActivities>;
