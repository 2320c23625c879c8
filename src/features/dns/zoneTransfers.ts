import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { withTransaction, type Db } from '../../db/pool.js';
import { modeOf } from '../../db/modeScope.js';
import type { Principal } from '../../auth/principal.js';
import type { DomainName } from '../../domainName.js';
import { NotFoundError, ValidationError, type FieldError } from '../../errors.js';
import { newId } from '../../ids.js';
import { activeDomainNamed, domainNamed, type Domain } from '../domains/index.js';
import { refusedRange } from '../webhooks/index.js';
import type { DnsProviders } from './provider/index.js';
import { lockZone } from './dnsZones.repository.js';
import { claimZone, ownsZone, zoneHost } from './zones.js';
import { sendTransfersToHost } from './zoneTransferHost.js';
import { deleteZoneTransfer, findZoneTransfers, insertZoneTransfer, type ZoneTransfer } from './zoneTransfers.repository.js';

/**
 * Outgoing zone transfers (docs/api-guide.md, Secondary DNS): each names the servers that may fetch
 * the zone and gets a TSIG key of its own, made here and shown once; the DNS host keeps the secret.
 * Every change of them is sent to the host under the zone's lock, the whole list at once.
 */
export const ZONE_TRANSFER_MAX_SERVERS = 10;

/** What a secondary server is refused for, or null: `address` or `address:port` (`[v6]:port`). */
export function transferServerProblem(server: string, livemode: boolean): string | null {
  const parsed = parseServer(server);
  if (!parsed) return 'Must be an IPv4 or IPv6 address, optionally with a port (192.0.2.1:53, [2001:db8::1]:53)';
  const range = refusedRange(parsed.address);
  // Test mode may name servers on this machine: a secondary on loopback beside a test DNS host.
  if (range && range !== 'documentation' && !(livemode === false && range.startsWith('loopback'))) return `Not a public address (${range})`;
  return null;
}

function parseServer(server: string): { address: string; port?: number } | undefined {
  if (net.isIP(server)) return { address: server };
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(server);
  if (!match) return undefined;
  const address = match[1] ?? match[2]!;
  const port = Number(match[3]);
  if (net.isIP(address) === 0 || port < 1 || port > 65_535) return undefined;
  return { address, port };
}

export interface ZoneTransferProps {
  db: Db;
  dnsProviders: DnsProviders;
  principal: Principal;
  orgId: string;
  domain: DomainName;
}

export async function listZoneTransfers(props: ZoneTransferProps): Promise<{ domain: Domain; transfers: ZoneTransfer[] }> {
  const mode = modeOf(props.principal.livemode);
  const domain = await domainNamed(props.db, mode, props.orgId, props.domain);
  return { domain, transfers: await findZoneTransfers(props.db, mode, domain.id) };
}

export async function createZoneTransfer(
  props: ZoneTransferProps & { servers: string[]; id?: string },
): Promise<{ domain: Domain; transfer: ZoneTransfer; secret: string }> {
  const mode = modeOf(props.principal.livemode);
  const issues: FieldError[] = props.servers.flatMap((server, i) => {
    const problem = transferServerProblem(server, props.principal.livemode);
    return problem ? [{ loc: ['body', 'servers', String(i)], msg: problem, type: 'value_error' }] : [];
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return withTransaction(props.db, async (tx) => {
    const domain = await activeDomainNamed(tx, mode, props.orgId, props.domain, 'its zone can be transferred');
    await lockZone(tx, mode, domain.name);
    const secret = randomBytes(32).toString('base64');
    const transfer = await insertZoneTransfer(tx, mode, {
      id: props.id ?? newId('ztr'),
      domainId: domain.id,
      orgId: props.orgId,
      servers: [...new Set(props.servers)],
      tsigName: `transfer-${randomBytes(8).toString('hex')}.${domain.name}.`,
    });
    const provider = zoneHost(props.dnsProviders, domain.livemode);
    if (provider && ((await ownsZone(tx, domain)) || (await claimZone(tx, provider, domain)).served)) {
      await provider.putTsigKey({ name: transfer.tsigName, algorithm: 'hmac-sha256', secret });
      await sendTransfersToHost(tx, provider, domain);
    }
    return { domain, transfer, secret };
  });
}

export async function removeZoneTransfer(props: ZoneTransferProps & { id: string }): Promise<void> {
  const mode = modeOf(props.principal.livemode);
  await withTransaction(props.db, async (tx) => {
    const domain = await domainNamed(tx, mode, props.orgId, props.domain);
    await lockZone(tx, mode, domain.name);
    const transfer = (await findZoneTransfers(tx, mode, domain.id)).find((t) => t.id === props.id);
    if (!transfer || !(await deleteZoneTransfer(tx, mode, domain.id, props.id))) throw new NotFoundError('Zone transfer not found');
    const provider = zoneHost(props.dnsProviders, domain.livemode);
    if (provider && (await ownsZone(tx, domain))) await sendTransfersToHost(tx, provider, domain);
    // The key goes even when another domain holds the zone: it is this transfer's alone.
    if (provider) await provider.deleteTsigKey(transfer.tsigName);
  });
}
