import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { findWebhookEndpoint, listWebhookEndpoints } from './endpoints.repository.js';
import { listDeliveries } from './deliveries.repository.js';
import { CreatedHeaders } from '../../http/conditional.js';
import { decodeCursor, PaginationQuery, toPage } from '../../http/pagination.js';
import { NotFoundError } from '../../errors.js';
import { EventSchema, presentEvent } from './event.presenter.js';
import {
  presentDelivery,
  presentWebhookEndpoint,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from './endpoint.presenter.js';
import { answerInTransaction } from '../../http/idempotency.js';
import { changeWebhookEndpoint, createWebhookEndpointWithin, MAX_ENDPOINTS_PER_ORG_AND_MODE, removeWebhookEndpoint, rotateWebhookSecret } from './endpoints.js';
import { retryDelivery, sendPing } from './resend.js';
import { admitRequestEvents, EVENT_BUDGET_ERRORS, type EventBudgetDeps } from './eventBudget.js';
import { OrgPath } from '../../http/pathParams.js';
import { CreateEndpointBody, DeliveryPage, DeliveryPath, EndpointPage, EndpointPath, RetryAccepted, UpdateEndpointBody } from './schemas.js';
import { modeOf } from '../../db/modeScope.js';

const BASE = '/api/v1/orgs/{org_oid}/webhook-endpoints';
const WRITERS = ['owner', 'admin'] as const;
const NOT_FOUND = 'No such endpoint in this organisation and mode (`NOT_FOUND`)';
const REFUSED_URL =
  'On `body.url` (`url_refused`): not `https`, credentials in the URL, a local name, or a literal address inside a private network ' +
  '(loopback, private, link-local, carrier-grade NAT, metadata, IPv4-mapped IPv6, unique-local); names are checked again at each delivery. ' +
  'Under `npm run dev`, a test-mode endpoint may be `http` to `localhost` or a loopback address';
const ENDPOINT_LIMIT = `The organisation already has ${MAX_ENDPOINTS_PER_ORG_AND_MODE} endpoints in this mode (\`WEBHOOK_ENDPOINT_LIMIT\`); delete one first`;
const MODE_NOTE = 'An endpoint belongs to the caller’s mode: a test-mode endpoint receives test-mode events only, a live one live events only.';

export type WebhookEndpointRouteDeps = Pick<PlatformDeps, 'db' | 'config' | 'payloadKeys' | 'temporal'> & EventBudgetDeps;

export function webhookEndpointRoutes(deps: WebhookEndpointRouteDeps) {
  const service = { db: deps.db, payloadKeys: deps.payloadKeys, destinations: deps.config.webhooks };
  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint; its signing secret is shown once',
      description:
        'Events are POSTed per the Standard Webhooks specification (`webhook-id`, `webhook-timestamp`, ' +
        '`webhook-signature: v1,<base64 HMAC-SHA256>`). Owners and admins only. ' +
        MODE_NOTE,
      tags: ['webhooks'],
      scope: 'webhooks:write',
      roles: WRITERS,
      request: { path: OrgPath, body: CreateEndpointBody },
      responses: { 201: { description: 'Created, with `secret`', schema: WebhookEndpointWithSecretSchema, headers: CreatedHeaders } },
      errors: { 409: ENDPOINT_LIMIT, 422: REFUSED_URL },
      answersInTransaction: true,
      handler: async (ctx, { path, body, principal, requestId }) => {
        await answerInTransaction(ctx, deps.db, async (tx) => {
          const { endpoint, secret } = await createWebhookEndpointWithin(tx, service, {
            mode: modeOf(principal.livemode),
            by: { principal, requestId },
            orgId: path.org_oid,
            url: body.url,
            events: body.events,
            description: body.description ?? null,
          });
          const headers = { Location: `/api/v1/orgs/${path.org_oid}/webhook-endpoints/${endpoint.id}` };
          return { status: 201, headers, body: { ...presentWebhookEndpoint(endpoint), secret } };
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listWebhookEndpoints',
      summary: "The organisation's webhook endpoints in the caller's mode, newest first",
      tags: ['webhooks'],
      scope: 'webhooks:read',
      request: { path: OrgPath, query: PaginationQuery },
      responses: { 200: { description: 'A page of endpoints (never their secrets)', schema: EndpointPage } },
      handler: async (ctx, { path, query, principal }) => {
        const rows = await listWebhookEndpoints(deps.db, modeOf(principal.livemode), { orgId: path.org_oid, limit: query.limit, after: decodeCursor(query.cursor) });
        ctx.body = toPage(rows, query.limit, (e) => ({ createdAt: e.createdAt, id: e.id }), presentWebhookEndpoint);
      },
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/{endpoint_id}`,
      operationId: 'getWebhookEndpoint',
      summary: 'One webhook endpoint (never its secret)',
      tags: ['webhooks'],
      scope: 'webhooks:read',
      request: { path: EndpointPath },
      responses: { 200: { description: 'The endpoint', schema: WebhookEndpointSchema } },
      errors: { 404: NOT_FOUND },
      handler: async (ctx, { path, principal }) => {
        const endpoint = await findWebhookEndpoint(deps.db, modeOf(principal.livemode), { orgId: path.org_oid, id: path.endpoint_id });
        if (!endpoint) throw new NotFoundError('Webhook endpoint not found');
        ctx.body = presentWebhookEndpoint(endpoint);
      },
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/{endpoint_id}`,
      operationId: 'updateWebhookEndpoint',
      summary: 'Change an endpoint’s URL, events, description, or turn it on or off',
      description: '`enabled: true` on an endpoint the service disabled starts it afresh. Owners and admins only.',
      tags: ['webhooks'],
      scope: 'webhooks:write',
      roles: WRITERS,
      request: { path: EndpointPath, body: UpdateEndpointBody },
      responses: { 200: { description: 'The endpoint', schema: WebhookEndpointSchema } },
      errors: { 404: NOT_FOUND, 422: REFUSED_URL },
      handler: async (ctx, { path, body, principal, requestId }) => {
        const endpoint = await changeWebhookEndpoint(service, {
          mode: modeOf(principal.livemode),
          by: { principal, requestId },
          orgId: path.org_oid,
          id: path.endpoint_id,
          changes: {
            ...(body.url !== undefined ? { url: body.url } : {}),
            ...(body.events !== undefined ? { events: body.events } : {}),
            ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
            ...(body.description !== undefined ? { description: body.description } : {}),
          },
        });
        ctx.body = presentWebhookEndpoint(endpoint);
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/{endpoint_id}`,
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete an endpoint and its delivery log; nothing more is sent to it',
      tags: ['webhooks'],
      scope: 'webhooks:write',
      roles: WRITERS,
      request: { path: EndpointPath },
      responses: { 204: { description: 'Deleted' } },
      errors: { 404: NOT_FOUND },
      handler: async (ctx, { path, principal, requestId }) => {
        await removeWebhookEndpoint(deps.db, { mode: modeOf(principal.livemode), by: { principal, requestId }, orgId: path.org_oid, id: path.endpoint_id });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/{endpoint_id}/rotate-secret`,
      operationId: 'rotateWebhookSecret',
      summary: 'A new signing secret, shown once; the old one keeps signing for 24 hours',
      description:
        'Until `secret_rotated_until`, every delivery carries two signatures in `webhook-signature` (new and old), ' +
        'so receivers can switch to the new secret without missing one. Owners and admins only.',
      tags: ['webhooks'],
      scope: 'webhooks:write',
      roles: WRITERS,
      request: { path: EndpointPath },
      responses: { 200: { description: 'The endpoint with its new `secret`', schema: WebhookEndpointWithSecretSchema } },
      errors: { 404: NOT_FOUND },
      handler: async (ctx, { path, principal, requestId }) => {
        const { endpoint, secret } = await rotateWebhookSecret(service, { mode: modeOf(principal.livemode), by: { principal, requestId }, orgId: path.org_oid, id: path.endpoint_id });
        ctx.body = { ...presentWebhookEndpoint(endpoint), secret };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/{endpoint_id}/test`,
      operationId: 'sendWebhookTest',
      summary: 'Send a `ping` event to this endpoint',
      description: 'The `ping` goes to this endpoint only, whatever it subscribes to; watch its deliveries. Owners and admins only.',
      tags: ['webhooks'],
      scope: 'webhooks:write',
      roles: WRITERS,
      request: { path: EndpointPath },
      responses: { 202: { description: 'The ping event, on its way', schema: EventSchema } },
      errors: { 404: NOT_FOUND, 409: `The endpoint is disabled (\`WEBHOOK_ENDPOINT_DISABLED\`), or ${EVENT_BUDGET_ERRORS[409]}`, 429: EVENT_BUDGET_ERRORS[429] },
      handler: async (ctx, { path, principal }) => {
        const mode = modeOf(principal.livemode);
        await admitRequestEvents(deps, ctx.state, mode);
        const event = await sendPing(deps.db, { mode, orgId: path.org_oid, endpointId: path.endpoint_id });
        ctx.status = 202;
        ctx.body = presentEvent(event);
      },
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/{endpoint_id}/deliveries`,
      operationId: 'listWebhookDeliveries',
      summary: 'Delivery attempts to this endpoint, newest first',
      tags: ['webhooks'],
      scope: 'webhooks:read',
      request: { path: EndpointPath, query: PaginationQuery },
      responses: { 200: { description: 'A page of attempts', schema: DeliveryPage } },
      errors: { 404: NOT_FOUND },
      handler: async (ctx, { path, query, principal }) => {
        const endpoint = await findWebhookEndpoint(deps.db, modeOf(principal.livemode), { orgId: path.org_oid, id: path.endpoint_id });
        if (!endpoint) throw new NotFoundError('Webhook endpoint not found');
        const rows = await listDeliveries(deps.db, modeOf(principal.livemode), { endpointId: endpoint.id, limit: query.limit, after: decodeCursor(query.cursor) });
        ctx.body = toPage(rows, query.limit, (d) => ({ createdAt: d.createdAt, id: d.id }), presentDelivery);
      },
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/{endpoint_id}/deliveries/{delivery_id}/retry`,
      operationId: 'retryWebhookDelivery',
      summary: 'Send that delivery’s event to the endpoint again, now',
      description: 'One attempt, recorded as the next one in the delivery log. Owners and admins only.',
      tags: ['webhooks'],
      scope: 'webhooks:write',
      roles: WRITERS,
      request: { path: DeliveryPath },
      responses: { 202: { description: 'Queued', schema: RetryAccepted } },
      errors: { 404: 'No such endpoint or delivery (`NOT_FOUND`)', 409: 'The endpoint is disabled (`WEBHOOK_ENDPOINT_DISABLED`)' },
      handler: async (ctx, { path, principal }) => {
        const queued = await retryDelivery(
          { db: deps.db, client: deps.temporal.client, config: deps.config },
          { mode: modeOf(principal.livemode), orgId: path.org_oid, endpointId: path.endpoint_id, deliveryId: path.delivery_id },
        );
        ctx.status = 202;
        ctx.body = { event_id: queued.eventId, endpoint_id: queued.endpointId, status: 'queued' as const };
      },
    }),
  ];
}
