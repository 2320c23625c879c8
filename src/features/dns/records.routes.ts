import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import type { DnsProviders } from './provider/index.js';
import type { Principal } from '../../auth/principal.js';
import { domainNamed } from '../domains/index.js';
import { findDnsRecord, listDnsRecords } from './dnsRecords.repository.js';
import type { DomainName } from '../../domainName.js';
import { CreatedHeaders, ETagHeaders, IfMatchHeader, setETag } from '../../http/conditional.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { NotFoundError } from '../../errors.js';
import { idempotentId } from '../../http/idempotency.js';
import type { AppState } from '../../http/context.js';
import { presentDnsRecord } from './dnsRecord.presenter.js';
import { DnsRecordSchema, admitRequestEvents, EVENT_BUDGET_ERRORS, type EventBudgetDeps } from '../webhooks/index.js';
import { applyRecordChanges, type RecordOperation, type RecordOperationResult } from './applyRecordChanges.js';
import { BatchBody, BatchResultSchema, CreateRecordBody, RecordListQuery, RecordPage, RecordPath, UpdateRecordBody } from './schemas.js';
import { DomainPath } from '../../http/pathParams.js';
import { ZONE_RECORD_LIMIT_REFUSAL } from './zoneRecordLimit.js';
import { admitRecordChanges, RECORD_CHANGE_BUDGET_REFUSAL, type RecordChangeBudgetDeps } from './recordChangeBudget.js';
import { modeOf } from '../../db/modeScope.js';

const NOT_FOUND = 'No such domain, or no such record on it, in this organisation and mode (`NOT_FOUND`)';
const STALE = '`If-Match` names a version other than the current one (`VERSION_MISMATCH`)';
const NOT_ACTIVE = 'the domain is not `active` (`DOMAIN_STATE_CONFLICT`)';
const BACKLOG = EVENT_BUDGET_ERRORS[409];
const CONFLICT =
  'a CNAME would share its name with another record, an ALIAS with A or AAAA records or another ALIAS, or a DS would stand without NS records ' +
  '(`RECORD_CONFLICT`); the same record exists already (`DUPLICATE`)';
const PROVIDER =
  'The DNS provider refused the change (`DNS_PROVIDER_UNAVAILABLE`, the detail quotes it); nothing was changed';
const PROVIDER_DOWN = 'The DNS provider is down, timed out or not configured (`DNS_PROVIDER_UNAVAILABLE`); nothing was changed, retry later';

const MODE_NOTE =
  'Test keys see and change only test-mode domains, whose records never reach a DNS provider; live keys and sessions ' +
  'only live ones, whose changes are applied to the DNS provider (PowerDNS) first and kept only if it accepted them. ' +
  'A domain of another organisation or mode answers 404 `NOT_FOUND`.';
const RRSET_NOTE =
  'The provider is sent whole RRsets (every record of one name and type; its TTL is the lowest of theirs), so concurrent ' +
  'edits of one name run one after the other and none is lost.';

function onlyRecord(results: RecordOperationResult[]) {
  const [result] = results;
  if (!result || result.op === 'delete') throw new Error('expected one created or updated record');
  return result.record;
}

export type DnsRecordRouteDeps = Pick<PlatformDeps, 'db'> & { dnsProviders: DnsProviders } & EventBudgetDeps & RecordChangeBudgetDeps;

export function dnsRecordRoutes(deps: DnsRecordRouteDeps) {
  const apply = async (
    state: AppState,
    { principal, requestId, path }: { principal: Principal; requestId: string; path: { org_oid: string; domain: DomainName } },
    operations: RecordOperation[],
    shape: 'single' | 'batch',
  ) => {
    // One event, whatever the number of records (a batch is one `dns_zone.changed`).
    await admitRequestEvents(deps, state, modeOf(principal.livemode));
    return applyRecordChanges({
      db: deps.db,
      dnsProviders: deps.dnsProviders,
      principal,
      orgId: path.org_oid,
      domain: path.domain,
      operations,
      shape,
      requestId,
      createdIdOf: (index) => idempotentId(state, 'rec', String(index)),
      eventSeedOf: (part) => idempotentId(state, 'evt', `dns_record|${part}`),
    });
  };

  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/records',
      operationId: 'listDnsRecords',
      summary: "The domain's DNS records, newest first; filter by `type` and `name`",
      description: MODE_NOTE,
      tags: ['dns'],
      scope: 'dns:read',
      actsOnRecords: true,
      request: { path: DomainPath, query: RecordListQuery },
      responses: { 200: { description: 'A page of records', schema: RecordPage } },
      errors: { 404: NOT_FOUND },
      handler: async (ctx, { path, query, principal }) => {
        const domain = await domainNamed(deps.db, modeOf(principal.livemode), path.org_oid, path.domain);
        const rows = await listDnsRecords(deps.db, modeOf(principal.livemode), {
          domainId: domain.id,
          type: query.type,
          name: query.name,
          limit: query.limit,
          after: decodeCursor(query.cursor),
        });
        ctx.body = toPage(rows, query.limit, (r) => ({ createdAt: r.createdAt, id: r.id }), presentDnsRecord);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/records',
      operationId: 'createDnsRecord',
      summary: 'Add a DNS record to an active domain',
      description: `Validated per type (see \`content\`). ${RRSET_NOTE} ${MODE_NOTE}`,
      tags: ['dns'],
      scope: 'dns:write',
      actsOnRecords: true,
      request: { path: DomainPath, body: CreateRecordBody },
      responses: { 201: { description: 'Created, at version 1', schema: DnsRecordSchema, headers: CreatedHeaders } },
      errors: { 404: NOT_FOUND, 409: `${NOT_ACTIVE}; ${BACKLOG}; ${CONFLICT}; or ${ZONE_RECORD_LIMIT_REFUSAL}`, 429: EVENT_BUDGET_ERRORS[429], 502: PROVIDER, 503: PROVIDER_DOWN },
      handler: async (ctx, input) => {
        const { path, body } = input;
        const record = onlyRecord(await apply(ctx.state, input, [{ op: 'create', record: body }], 'single'));
        ctx.status = 201;
        ctx.set('Location', `/api/v1/orgs/${path.org_oid}/domains/${path.domain.name}/records/${record.id}`);
        setETag(ctx, record.version);
        ctx.body = presentDnsRecord(record);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/records/batch',
      operationId: 'batchDnsRecords',
      summary: 'Create, update and delete several records of a domain at once: all or nothing',
      description:
        'The operations are applied in order, locally and at the DNS provider in one atomic change, or not at all: any ' +
        'invalid entry answers 422 with `loc` pointing at `body.operations.N…` (an unknown record id too), a stale ' +
        `\`if_match\` 409 \`VERSION_MISMATCH\` naming the operation, and nothing changes. ${RRSET_NOTE} ${MODE_NOTE}`,
      tags: ['dns'],
      scope: 'dns:write',
      actsOnRecords: true,
      request: { path: DomainPath, body: BatchBody },
      responses: { 200: { description: 'Every operation applied', schema: BatchResultSchema } },
      errors: { 404: 'No such domain in this organisation and mode (`NOT_FOUND`)', 409: `${NOT_ACTIVE}; ${STALE}; ${BACKLOG}; ${CONFLICT}; or ${ZONE_RECORD_LIMIT_REFUSAL}`, 429: `${EVENT_BUDGET_ERRORS[429]}; or ${RECORD_CHANGE_BUDGET_REFUSAL}`, 502: PROVIDER, 503: PROVIDER_DOWN },
      handler: async (ctx, input) => {
        const operations = input.body.operations.map((o): RecordOperation => {
          if (o.op === 'create') return { op: 'create', record: o.record };
          if (o.op === 'update') return { op: 'update', id: o.id, changes: o.changes, expectedVersion: o.if_match };
          return { op: 'delete', id: o.id, expectedVersion: o.if_match };
        });
        await admitRecordChanges(deps, ctx.state, modeOf(input.principal.livemode), operations.length);
        const results = await apply(ctx.state, input, operations, 'batch');
        ctx.body = {
          results: results.map((r) => (r.op === 'delete' ? { op: r.op, id: r.id } : { op: r.op, record: presentDnsRecord(r.record) })),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/records/{record_id}',
      operationId: 'getDnsRecord',
      summary: 'One DNS record, with its version as ETag',
      description: MODE_NOTE,
      tags: ['dns'],
      scope: 'dns:read',
      actsOnRecords: true,
      request: { path: RecordPath },
      responses: { 200: { description: 'The record', schema: DnsRecordSchema, headers: ETagHeaders } },
      errors: { 404: NOT_FOUND },
      handler: async (ctx, { path, principal }) => {
        const domain = await domainNamed(deps.db, modeOf(principal.livemode), path.org_oid, path.domain);
        const record = await findDnsRecord(deps.db, modeOf(principal.livemode), { domainId: domain.id, id: path.record_id });
        if (!record) throw new NotFoundError('Record not found');
        setETag(ctx, record.version);
        ctx.body = presentDnsRecord(record);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/records/{record_id}',
      operationId: 'updateDnsRecord',
      summary: 'Change a DNS record’s name, content, TTL or priority; its version goes up by one',
      description:
        'Send only the fields to change; the record is validated again as a whole. With `If-Match` naming an older ' +
        `version the answer is 409 \`VERSION_MISMATCH\` and nothing changes. ${RRSET_NOTE} ${MODE_NOTE}`,
      tags: ['dns'],
      scope: 'dns:write',
      actsOnRecords: true,
      request: { path: RecordPath, header: IfMatchHeader, body: UpdateRecordBody },
      responses: { 200: { description: 'The updated record', schema: DnsRecordSchema, headers: ETagHeaders } },
      errors: { 404: NOT_FOUND, 409: `${STALE}; ${NOT_ACTIVE}; ${BACKLOG}; or ${CONFLICT}`, 429: EVENT_BUDGET_ERRORS[429], 502: PROVIDER, 503: PROVIDER_DOWN },
      handler: async (ctx, input) => {
        const { path, header, body } = input;
        const operation: RecordOperation = { op: 'update', id: path.record_id, changes: body, expectedVersion: header['if-match'] };
        const record = onlyRecord(await apply(ctx.state, input, [operation], 'single'));
        setETag(ctx, record.version);
        ctx.body = presentDnsRecord(record);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/records/{record_id}',
      operationId: 'deleteDnsRecord',
      summary: 'Delete a DNS record',
      description: `With \`If-Match\` naming an older version, 409 \`VERSION_MISMATCH\` and nothing changes. ${RRSET_NOTE} ${MODE_NOTE}`,
      tags: ['dns'],
      scope: 'dns:write',
      actsOnRecords: true,
      request: { path: RecordPath, header: IfMatchHeader },
      responses: { 204: { description: 'Deleted' } },
      errors: { 404: NOT_FOUND, 409: `${STALE}; ${BACKLOG}; or ${NOT_ACTIVE}`, 429: EVENT_BUDGET_ERRORS[429], 502: PROVIDER, 503: PROVIDER_DOWN },
      handler: async (ctx, input) => {
        const { path, header } = input;
        await apply(ctx.state, input, [{ op: 'delete', id: path.record_id, expectedVersion: header['if-match'] }], 'single');
        ctx.status = 204;
      },
    }),
  ];
}
