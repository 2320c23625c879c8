import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { idempotentId } from '../../http/idempotency.js';
import { DomainPath } from '../../http/pathParams.js';
import type { DnsProviders } from './provider/index.js';
import { CreatedZoneTransferSchema, presentZoneTransfer, ZoneTransferList } from './zoneTransfers.presenter.js';
import { createZoneTransfer, listZoneTransfers, removeZoneTransfer, ZONE_TRANSFER_MAX_SERVERS } from './zoneTransfers.js';

const PATH = '/api/v1/orgs/{org_oid}/domains/{domain}/zone/transfers';
const NOT_FOUND = 'No such domain in this organisation and mode (`NOT_FOUND`)';
const HOW =
  'The DNS host answers AXFR and IXFR for the zone only when signed with one of its transfers’ TSIG keys, and sends NOTIFY ' +
  'to every transfer’s servers on each change, so a secondary serves a change within seconds. Test mode does the same on ' +
  'the test DNS host (under `npm run dev`, on `PDNS_DEV_PORT`); without one nothing is transferred (docs/api-guide.md, Secondary DNS).';

const CreateBody = z.object({
  servers: z
    .array(z.string())
    .min(1, 'Name at least one server')
    .max(ZONE_TRANSFER_MAX_SERVERS, `At most ${ZONE_TRANSFER_MAX_SERVERS} servers`)
    .meta({ example: ['192.0.2.1', '2001:db8::1'] })
    .describe('The secondaries’ addresses, each optionally with a port (`192.0.2.1:5353`, `[2001:db8::1]:5353`); NOTIFY goes to port 53 unless one is given. Public addresses only (test mode: loopback too)'),
});
const TransferPath = DomainPath.extend({ transfer_id: z.string().describe('The transfer’s id') });

export type ZoneTransferRouteDeps = Pick<PlatformDeps, 'db'> & { dnsProviders: DnsProviders };

export function zoneTransferRoutes(deps: ZoneTransferRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: PATH,
      operationId: 'listZoneTransfers',
      summary: 'The secondary servers the zone is transferred to',
      description: `Each transfer’s servers and the name of its TSIG key (never its secret). ${HOW}`,
      tags: ['dns'],
      scope: 'dns:read',
      request: { path: DomainPath },
      responses: { 200: { description: 'The zone’s transfers, oldest first', schema: ZoneTransferList } },
      errors: { 404: NOT_FOUND },
      handler: async (ctx, { path, principal }) => {
        const { domain, transfers } = await listZoneTransfers({ ...deps, principal, orgId: path.org_oid, domain: path.domain });
        ctx.body = { data: transfers.map((t) => presentZoneTransfer(domain.name, t)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: PATH,
      operationId: 'createZoneTransfer',
      summary: 'Transfer the zone to secondary servers, with a TSIG key made for them',
      description: `Answers the key’s secret (HMAC-SHA256, base64) in this answer only: configure it on the secondaries. ${HOW}`,
      tags: ['dns'],
      scope: 'dns:write',
      request: { path: DomainPath, body: CreateBody },
      responses: { 201: { description: 'Created; the secret is shown only here', schema: CreatedZoneTransferSchema } },
      errors: {
        404: NOT_FOUND,
        409: 'The domain is not `active` (`DOMAIN_STATE_CONFLICT`)',
        422: 'A server is not an address, or not a public one (`VALIDATION_ERROR`)',
        502: 'The DNS provider refused the change (`DNS_PROVIDER_UNAVAILABLE`); nothing was changed',
        503: 'The DNS provider is down (`DNS_PROVIDER_UNAVAILABLE`); nothing was changed, retry later',
      },
      handler: async (ctx, { path, body, principal }) => {
        const { domain, transfer, secret } = await createZoneTransfer({
          ...deps,
          principal,
          orgId: path.org_oid,
          domain: path.domain,
          servers: body.servers,
          id: idempotentId(ctx.state, 'ztr', 'transfer'),
        });
        const view = presentZoneTransfer(domain.name, transfer);
        ctx.status = 201;
        ctx.set('Location', `/api/v1/orgs/${path.org_oid}/domains/${domain.name}/zone/transfers/${transfer.id}`);
        ctx.body = { ...view, tsig: { ...view.tsig, secret } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${PATH}/{transfer_id}`,
      operationId: 'deleteZoneTransfer',
      summary: 'Stop transferring the zone to that transfer’s servers, and delete its key',
      description: 'The servers are no longer notified and their key no longer lets anyone transfer the zone.',
      tags: ['dns'],
      scope: 'dns:write',
      request: { path: TransferPath },
      responses: { 204: { description: 'Deleted' } },
      errors: { 404: 'No such domain, or no such transfer of it (`NOT_FOUND`)', 502: 'The DNS provider refused the change (`DNS_PROVIDER_UNAVAILABLE`)', 503: 'The DNS provider is down (`DNS_PROVIDER_UNAVAILABLE`); retry later' },
      handler: async (ctx, { path, principal }) => {
        await removeZoneTransfer({ ...deps, principal, orgId: path.org_oid, domain: path.domain, id: path.transfer_id });
        ctx.status = 204;
      },
    }),
  ];
}
