import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode } from '../../db/modeScope.js';
import { keyset, type PageRequest } from '../../db/keyset.js';
import type { SealedJson } from '../../db/sealedJson.js';

/** What `secrets` is sealed for (src/db/sealedJson.ts). */
export const WEBHOOK_SECRETS_PURPOSE = 'webhook_endpoints.secrets';

/** The plaintext inside `secrets`: the current signing secret and, for 24 hours after a rotation, the one before. */
export interface EndpointSecrets {
  current: string;
  previous: string | null;
}

export interface WebhookEndpoint {
  id: string;
  orgId: string;
  livemode: boolean;
  url: string;
  /** Event types, or `["*"]` for all of them. */
  events: string[];
  description: string | null;
  enabled: boolean;
  /** Sealed EndpointSecrets: never presented. */
  secrets: SealedJson;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, org_id AS "orgId", livemode, url, events, description, enabled, secrets,
  previous_secret_expires_at AS "previousSecretExpiresAt", failing_since AS "failingSince",
  disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt"`;
const endpoints = new ModeScopedTable<WebhookEndpoint>('webhook_endpoints', COLUMNS);

export function insertWebhookEndpoint(
  db: Queryable,
  mode: Mode,
  props: Pick<WebhookEndpoint, 'id' | 'orgId' | 'url' | 'events' | 'description' | 'secrets'>,
): Promise<WebhookEndpoint> {
  return endpoints.insert(db, mode, {
    id: props.id,
    org_id: props.orgId,
    url: props.url,
    events: props.events,
    description: props.description,
    secrets: JSON.stringify(props.secrets),
  });
}

/**
 * The organisation's endpoints in this mode, counted under a transaction lock that every create of
 * the same organisation and mode takes first: call it inside the transaction that inserts.
 */
export async function lockAndCountWebhookEndpoints(db: Queryable, mode: Mode, orgId: string): Promise<number> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints:' || $1::text))`, [`${orgId}:${mode.livemode ? 'live' : 'test'}`]);
  return endpoints.count(db, mode, 'org_id = $2', [orgId]);
}

export function findWebhookEndpoint(db: Queryable, mode: Mode, props: { orgId: string; id: string; forUpdate?: boolean }): Promise<WebhookEndpoint | undefined> {
  return endpoints
    .select(db, mode, 'org_id = $2 AND id = $3', [props.orgId, props.id], props.forUpdate ? 'FOR UPDATE' : 'LIMIT 1')
    .then((rows) => rows[0]);
}

/** By id alone, for delivery (the system's own work). */
export function findWebhookEndpointById(db: Queryable, mode: Mode, id: string): Promise<WebhookEndpoint | undefined> {
  return endpoints.findOne(db, mode, 'id = $2', [id]);
}

export function listWebhookEndpoints(
  db: Queryable,
  mode: Mode,
  props: { orgId: string } & PageRequest,
): Promise<WebhookEndpoint[]> {
  const p = modeScopedParams();
  const where = `org_id = ${p.add(props.orgId)}`;
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return endpoints.select(db, mode, `${where} AND ${page.condition}`, p.values, page.tail);
}

/**
 * The enabled endpoints of these organisations in this mode: the dispatcher reads them once per batch
 * of events and matches each event with endpointWantsEvent, instead of asking once per event.
 */
export function enabledEndpointsOfOrgs(db: Queryable, mode: Mode, orgIds: readonly string[]): Promise<WebhookEndpoint[]> {
  if (orgIds.length === 0) return Promise.resolve([]);
  return endpoints.select(db, mode, 'org_id = ANY($2) AND enabled', [orgIds]);
}

/**
 * Whether an event goes to this endpoint: same organisation and mode, subscribed to its type or to
 * everything. A `ping` goes only to the endpoint it names (`POST …/test`).
 */
export function endpointWantsEvent(
  endpoint: Pick<WebhookEndpoint, 'id' | 'orgId' | 'livemode' | 'events'>,
  event: { orgId: string; livemode: boolean; type: string; pingEndpointId: string | null },
): boolean {
  if (endpoint.orgId !== event.orgId || endpoint.livemode !== event.livemode) return false;
  if (event.pingEndpointId !== null) return endpoint.id === event.pingEndpointId;
  return endpoint.events.includes(event.type) || endpoint.events.includes('*');
}

export interface EndpointChanges {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
  secrets?: SealedJson;
  previousSecretExpiresAt?: Date | null;
}

export async function updateWebhookEndpoint(db: Queryable, mode: Mode, props: { orgId: string; id: string; changes: EndpointChanges }): Promise<WebhookEndpoint | undefined> {
  const { changes } = props;
  const set: Record<string, unknown> = {};
  if (changes.url !== undefined) set.url = changes.url;
  if (changes.events !== undefined) set.events = changes.events;
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.secrets !== undefined) set.secrets = JSON.stringify(changes.secrets);
  if (changes.previousSecretExpiresAt !== undefined) set.previous_secret_expires_at = changes.previousSecretExpiresAt;
  if (changes.enabled !== undefined) {
    set.enabled = changes.enabled;
    // Turned on again by its owner: the failure streak and the reason it was turned off are forgotten.
    if (changes.enabled) Object.assign(set, { failing_since: null, disabled_reason: null });
  }
  const [updated] = await endpoints.update(db, mode, 'org_id = $2 AND id = $3', [props.orgId, props.id], set, { now: ['updated_at'] });
  return updated;
}

export async function deleteWebhookEndpoint(db: Queryable, mode: Mode, props: { orgId: string; id: string }): Promise<boolean> {
  return (await endpoints.delete(db, mode, 'org_id = $2 AND id = $3', [props.orgId, props.id])) === 1;
}

/** A 2xx: the failure streak ends. */
export async function markEndpointHealthy(db: Queryable, mode: Mode, id: string): Promise<void> {
  await endpoints.update(db, mode, 'id = $2 AND failing_since IS NOT NULL', [id], { failing_since: null });
}

/**
 * A failed attempt: starts the failure streak if none is running, and disables the endpoint when the
 * streak is older than `disableAfterMs` (with `reason`). Returns the endpoint when this call disabled it.
 */
export async function recordEndpointFailure(
  db: Queryable,
  mode: Mode,
  props: { id: string; disableAfterMs: number; reason: string },
): Promise<WebhookEndpoint | undefined> {
  await endpoints.update(db, mode, 'id = $2 AND failing_since IS NULL', [props.id], {}, { now: ['failing_since'] });
  const [disabled] = await endpoints.update(
    db,
    mode,
    `id = $2 AND enabled AND failing_since <= now() - make_interval(secs => $3)`,
    [props.id, props.disableAfterMs / 1000],
    { enabled: false, disabled_reason: props.reason },
    { now: ['updated_at'] },
  );
  return disabled;
}
