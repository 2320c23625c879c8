import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import type { EventStreamHub } from './eventStreamHub.js';
import { ConflictError } from '../../errors.js';
import { EventStreamLimitError } from './errors.js';
import { currentPrincipal } from '../../auth/authenticate.js';
import { findMembershipWithOrganization } from '../../auth/organizations.js';
import { addressAllowed } from '../../auth/keyRestrictions.js';
import { InsufficientScopeError, IpNotAllowedError, NotOrgMemberError } from '../../auth/errors.js';
import { clientAddress } from '../../http/clientAddress.js';
import { OrgPath } from '../../http/pathParams.js';
import { EventStreamQuery, EventStreamHeader } from './schemas.js';
import { eventsStartingNow, findEvent } from './events.repository.js';
import { EventStream, HEARTBEAT_MS, RECHECK_MS } from './eventStream.js';
import { EventStreamSlots } from './eventStreamSlots.js';
import { streamSigningSecret } from './signing.js';
import { audienceOf } from './eventDomains.js';
import { planScaledCount } from '../../rateLimit/groups.js';
import type { Principal } from '../../auth/principal.js';
import { modeOf } from '../../db/modeScope.js';

/** The restrictions that decide which events a key sees; a stream ends when they change. */
const restrictionsOf = (principal: Principal) => JSON.stringify([principal.guards?.allowedDomains ?? [], principal.guards?.allowedRecords ?? []]);

const EXAMPLE = [
  'retry: 2000',
  '',
  'event: ready',
  'data: {"org_id":"org_…","livemode":false,"types":null,"signing_secret":"whsec_…"}',
  '',
  'id: evt_…',
  'event: delivery',
  'data: {"event_id":"evt_…","type":"dns_record.created","headers":{"content-type":"application/json","user-agent":"domain-service-webhooks/1","webhook-id":"evt_…","webhook-timestamp":"1767225600","webhook-signature":"v1,…"},"body":"{\\"id\\":\\"evt_…\\",…}"}',
  '',
  ': keep-alive',
  '',
].join('\n');

export type EventStreamRouteDeps = PlatformDeps & {
  /** Tells open event streams of new events (src/features/webhooks/eventStreamHub.ts). */
  eventStreams: EventStreamHub;
};

/** `GET …/events/stream`: the organisation's events as they happen, for `domain-service webhooks listen`. */
export function eventStreamRoutes(deps: EventStreamRouteDeps) {
  const { webhooks } = deps.config;
  const slots = new EventStreamSlots(deps.redis, webhooks.streamSlotTtlMs);
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/events/stream',
      operationId: 'streamEvents',
      summary: "The organisation's events as they happen (Server-Sent Events), each as a webhook would receive it",
      description:
        'Events of the caller’s mode, from when the stream opens (or after `Last-Event-ID`), oldest first. First a `ready` event whose ' +
        '`signing_secret` (`whsec_…`) is yours for this organisation and mode, the same on every stream; then one `delivery` per event: ' +
        '`{event_id, type, headers, body}`, the exact body and Standard Webhooks headers a webhook endpoint would get, signed with that ' +
        'secret, so a local receiver verifies them as it would real deliveries. POST `body` with `headers` as they are. Delivery is at ' +
        `least once (deduplicate on \`webhook-id\`); a comment every ${HEARTBEAT_MS / 1000} s keeps the stream alive, and an \`end\` event ` +
        `(\`{code, detail}\`) says why it ends: the credential or membership no longer holds (checked every ${RECHECK_MS / 1000} s, and at once when the ` +
        'key changes), the key’s `allowed_domains` or `allowed_records` changed (`KEY_RESTRICTIONS_CHANGED`), the client reads too slowly (`STREAM_TOO_SLOW`), ' +
        'or the server restarts; reconnect with `Last-Event-ID`. A key restricted with `allowed_domains` is sent only the events of those domains and ' +
        'those about no domain. At most `EVENT_STREAMS_PER_USER` streams per member and `EVENT_STREAMS_PER_ORG` per organisation, in each mode, times the plan.',
      tags: ['webhooks'],
      scope: 'webhooks:read',
      filtersByKeyRestrictions: true,
      request: { path: OrgPath, query: EventStreamQuery, header: EventStreamHeader },
      responses: { 200: { description: 'A stream that stays open', contentType: 'text/event-stream', schema: z.string().meta({ example: EXAMPLE }) } },
      errors: { 409: 'The organisation, or the caller in it, already holds as many streams open in this mode as it may (`EVENT_STREAM_LIMIT`)' },
      handler: async (ctx, { path, query, header, principal }) => {
        const orgId = path.org_oid;
        const plan = ctx.state.org!.org.plan;
        const owner = { orgId, userId: principal.user.id, mode: modeOf(principal.livemode) };
        const taken = await slots.take(owner, { perOrg: planScaledCount(webhooks.streamsPerOrg, plan), perUser: planScaledCount(webhooks.streamsPerUser, plan) });
        if ('refused' in taken) throw new EventStreamLimitError({ limit: taken.limit, whose: taken.refused });
        const { slot } = taken;
        const release = () => slots.release(owner, slot).catch((err: unknown) => ctx.state.log.warn({ err }, 'event stream slot not released; it expires by itself'));
        const audience = audienceOf(principal);
        let after;
        try {
          const lastEventId = header['last-event-id'];
          const resumed = lastEventId ? await findEvent(deps.db, modeOf(principal.livemode), { orgId, id: lastEventId, audience }) : undefined;
          after = resumed ? { createdAt: resumed.createdAt, id: resumed.id } : await eventsStartingNow(deps.db);
        } catch (err) {
          await release();
          throw err;
        }
        // The stream checks again, as it goes, what the router checked before it: the credential, the scope, the membership.
        const authorization = ctx.get('authorization');
        const mode = ctx.req.headers['x-mode'] === undefined ? undefined : ctx.get('x-mode');
        const address = clientAddress(ctx, deps.config.trustProxy);
        const restrictions = restrictionsOf(principal);
        const { keyId } = principal;
        const recheck = async () => {
          const now = await currentPrincipal(deps, authorization, mode);
          if (!addressAllowed(now.guards?.allowedIps ?? [], address)) throw new IpNotAllowedError(address);
          if (restrictionsOf(now) !== restrictions) {
            throw new ConflictError('KEY_RESTRICTIONS_CHANGED', 'The key’s allowed_domains or allowed_records changed; reconnect to follow the events it may read now');
          }
          if (!now.scopes.has('webhooks:read')) throw new InsufficientScopeError('webhooks:read');
          if (!(await findMembershipWithOrganization(deps.db, orgId, now.user.id))) throw new NotOrgMemberError();
        };
        ctx.status = 200;
        ctx.respond = false;
        const stream = new EventStream({
          db: deps.db,
          hub: deps.eventStreams,
          logger: ctx.state.log,
          res: ctx.res,
          mode: modeOf(principal.livemode),
          orgId,
          types: query.types,
          audience,
          secret: streamSigningSecret(deps.keyHashSecret, { userId: principal.user.id, orgId, livemode: principal.livemode }),
          after,
          recheck,
          ...(keyId ? { watchCredential: (changed: () => void) => deps.apiKeys.watch(keyId, changed) } : {}),
          renewSlot: () => slots.renew(owner, slot),
          renewSlotEveryMs: slots.renewEveryMs,
          onEnd: () => void release(),
        });
        await stream.start();
      },
    }),
  ];
}
