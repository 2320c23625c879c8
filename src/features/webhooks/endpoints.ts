import { withTransaction, type Db, type Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import {
  findWebhookEndpoint,
  insertWebhookEndpoint,
  lockAndCountWebhookEndpoints,
  updateWebhookEndpoint,
  deleteWebhookEndpoint as deleteEndpointRow,
  WEBHOOK_SECRETS_PURPOSE,
  type EndpointChanges,
  type EndpointSecrets,
  type WebhookEndpoint,
} from './endpoints.repository.js';
import { openJson, sealJson } from '../../db/sealedJson.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import { WebhookEndpointLimitError } from './errors.js';
import { newId } from '../../ids.js';
import type { PayloadKeyring } from '../../temporal/payloadKeys.js';
import { addressPolicy, urlProblem, type DestinationSettings } from './addressPolicy.js';
import { newSigningSecret } from './signing.js';
import { endpointDeliveriesNoLongerWaiting } from './deliveriesWaiting.repository.js';
import { auditCallerAction, type CallerOfRequest } from '../../audit/auditEvents.js';

/** How long the previous secret keeps signing after a rotation (docs/api-guide.md, Webhooks and events). */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/**
 * Endpoints one organisation may have per mode: each event fans out to all of them, each retried for
 * days, so every further endpoint multiplies what one organisation can make us send.
 */
export const MAX_ENDPOINTS_PER_ORG_AND_MODE = 16;

export interface EndpointServiceDeps {
  db: Db;
  payloadKeys: PayloadKeyring;
  /** WEBHOOK_ALLOW_PRIVATE and WEBHOOK_TEST_LOOPBACK */
  destinations: DestinationSettings;
}

/** A URL the sender would refuse is 422 on `body.url` when saved; names are checked again when sending. */
function checkUrl(deps: Pick<EndpointServiceDeps, 'destinations'>, mode: Mode, url: string): void {
  const problem = urlProblem(url, addressPolicy(deps.destinations, mode));
  if (problem) throw new ValidationError([{ loc: ['body', 'url'], msg: problem, type: 'url_refused' }]);
}

/** `["*"]` stands for every type; listing it beside others means the same. */
function normalisedEvents(events: string[]): string[] {
  return events.includes('*') ? ['*'] : [...new Set(events)];
}

function sealed(deps: Pick<EndpointServiceDeps, 'payloadKeys'>, secrets: EndpointSecrets) {
  return sealJson(deps.payloadKeys, WEBHOOK_SECRETS_PURPOSE, secrets);
}

/**
 * The organisation and mode, and who asked: every change a caller makes to an endpoint is audited
 * (where events go is worth knowing). `by` is null only for the service's own set-ups (benchmarks).
 */
export interface EndpointCaller {
  mode: Mode;
  orgId: string;
  by: CallerOfRequest | null;
}

function auditEndpoint(
  tx: Queryable,
  caller: EndpointCaller,
  action: 'webhook_endpoint.created' | 'webhook_endpoint.updated' | 'webhook_endpoint.deleted' | 'webhook_endpoint.secret_rotated',
  endpoint: Pick<WebhookEndpoint, 'id' | 'url'>,
  data: Record<string, unknown> = {},
): Promise<string | undefined> {
  if (!caller.by) return Promise.resolve(undefined);
  return auditCallerAction(tx, caller.by, { action, orgId: caller.orgId, targetType: 'webhook_endpoint', targetId: endpoint.id, data: { url: endpoint.url, ...data } });
}

/** What a new endpoint is asked with, by whom. */
export type NewEndpoint = EndpointCaller & { url: string; events: string[]; description: string | null };

/**
 * A new endpoint in the caller's mode, and its signing secret: the only time the secret is shown.
 * At most MAX_ENDPOINTS_PER_ORG_AND_MODE per organisation and mode (409 `WEBHOOK_ENDPOINT_LIMIT`).
 * Written in the caller's transaction: the route stores its answer there too (answerInTransaction).
 */
export async function createWebhookEndpointWithin(
  tx: Queryable,
  deps: Omit<EndpointServiceDeps, 'db'>,
  props: NewEndpoint,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const { mode } = props;
  checkUrl(deps, mode, props.url);
  const secret = newSigningSecret();
  // Counted under a lock of the organisation's endpoints, so concurrent creates cannot pass the limit together.
  if ((await lockAndCountWebhookEndpoints(tx, mode, props.orgId)) >= MAX_ENDPOINTS_PER_ORG_AND_MODE) {
    throw new WebhookEndpointLimitError(MAX_ENDPOINTS_PER_ORG_AND_MODE);
  }
  const endpoint = await insertWebhookEndpoint(tx, mode, {
    id: newId('we'),
    orgId: props.orgId,
    url: props.url,
    events: normalisedEvents(props.events),
    description: props.description,
    secrets: sealed(deps, { current: secret, previous: null }),
  });
  await auditEndpoint(tx, props, 'webhook_endpoint.created', endpoint, { events: endpoint.events });
  return { endpoint, secret };
}

/** createWebhookEndpointWithin in a transaction of its own (the bench and tests make endpoints so). */
export function createWebhookEndpoint(
  deps: EndpointServiceDeps,
  props: NewEndpoint,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  return withTransaction(deps.db, (tx) => createWebhookEndpointWithin(tx, deps, props));
}

export async function changeWebhookEndpoint(
  deps: EndpointServiceDeps,
  props: EndpointCaller & { id: string; changes: Pick<EndpointChanges, 'url' | 'events' | 'enabled' | 'description'> },
): Promise<WebhookEndpoint> {
  const { changes } = props;
  const { mode } = props;
  if (changes.url !== undefined) checkUrl(deps, mode, changes.url);
  return withTransaction(deps.db, async (tx) => {
    const updated = await updateWebhookEndpoint(tx, mode, {
      orgId: props.orgId,
      id: props.id,
      changes: { ...changes, ...(changes.events ? { events: normalisedEvents(changes.events) } : {}) },
    });
    if (!updated) throw new NotFoundError('Webhook endpoint not found');
    if (changes.enabled === false) await endpointDeliveriesNoLongerWaiting(tx, mode, updated.id);
    await auditEndpoint(tx, props, 'webhook_endpoint.updated', updated, { fields: Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined) });
    return updated;
  });
}

/** Deletes an endpoint (its delivery log goes with it); 404 when there is none. */
export async function removeWebhookEndpoint(db: Db, props: EndpointCaller & { id: string }): Promise<void> {
  await withTransaction(db, async (tx) => {
    const endpoint = await findWebhookEndpoint(tx, props.mode, { orgId: props.orgId, id: props.id, forUpdate: true });
    if (!endpoint || !(await deleteEndpointRow(tx, props.mode, { orgId: props.orgId, id: props.id }))) throw new NotFoundError('Webhook endpoint not found');
    await auditEndpoint(tx, props, 'webhook_endpoint.deleted', endpoint);
  });
}

/**
 * A new current secret; the one it replaces keeps signing for ROTATION_OVERLAP_MS, so receivers can
 * switch without missing a delivery (deliveries carry both signatures meanwhile). A secret older
 * than that is dropped.
 */
export async function rotateWebhookSecret(
  deps: EndpointServiceDeps,
  props: EndpointCaller & { id: string },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const { mode } = props;
  return withTransaction(deps.db, async (tx) => {
    const endpoint = await findWebhookEndpoint(tx, mode, { orgId: props.orgId, id: props.id, forUpdate: true });
    if (!endpoint) throw new NotFoundError('Webhook endpoint not found');
    const old = openJson<EndpointSecrets>(deps.payloadKeys, WEBHOOK_SECRETS_PURPOSE, endpoint.secrets);
    const secret = newSigningSecret();
    const updated = await updateWebhookEndpoint(tx, mode, {
      orgId: props.orgId,
      id: props.id,
      changes: { secrets: sealed(deps, { current: secret, previous: old.current }), previousSecretExpiresAt: new Date(Date.now() + ROTATION_OVERLAP_MS) },
    });
    await auditEndpoint(tx, props, 'webhook_endpoint.secret_rotated', endpoint);
    return { endpoint: updated!, secret };
  });
}
