import { defineRoute } from '../../http/route.js';
import { findEvent, listEvents } from './events.repository.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { NotFoundError } from '../../errors.js';
import { EventSchema, presentEvent } from './event.presenter.js';
import { OrgPath } from '../../http/pathParams.js';
import { EventListQuery, EventPage, EventPath } from './schemas.js';
import { eventStreamRoutes, type EventStreamRouteDeps } from './eventStream.routes.js';
import { audienceOf } from './eventDomains.js';
import { modeOf } from '../../db/modeScope.js';

const MODE_NOTE =
  'Events of the caller’s mode only (test keys see test-mode events); a key restricted with `allowed_domains` or `allowed_records` sees only the events ' +
  'of the domains those allow and those about no domain (pings, revoked keys, disabled endpoints). Kept 30 days.';

export type EventRouteDeps = EventStreamRouteDeps;

export function eventRoutes(deps: EventRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/events',
      operationId: 'listEvents',
      summary: "The organisation's events, newest first",
      description: `Each is \`{id, type, created_at, livemode, org_id, data: {object}}\`, exactly what webhooks POST. ${MODE_NOTE}`,
      tags: ['webhooks'],
      scope: 'webhooks:read',
      filtersByKeyRestrictions: true,
      request: { path: OrgPath, query: EventListQuery },
      responses: { 200: { description: 'A page of events', schema: EventPage } },
      handler: async (ctx, { path, query, principal }) => {
        const rows = await listEvents(deps.db, modeOf(principal.livemode), {
          orgId: path.org_oid,
          type: query.type,
          audience: audienceOf(principal),
          limit: query.limit,
          after: decodeCursor(query.cursor),
        });
        ctx.body = toPage(rows, query.limit, (e) => ({ createdAt: e.createdAt, id: e.id }), presentEvent);
      },
    }),
    // Before `…/events/{event_id}`, which would otherwise take `stream` for an id.
    ...eventStreamRoutes(deps),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/events/{event_id}',
      operationId: 'getEvent',
      summary: 'One event',
      description: MODE_NOTE,
      tags: ['webhooks'],
      scope: 'webhooks:read',
      filtersByKeyRestrictions: true,
      request: { path: EventPath },
      responses: { 200: { description: 'The event', schema: EventSchema } },
      errors: { 404: 'No such event in this organisation and mode, one about a domain outside the key’s `allowed_domains` or `allowed_records`, or one older than 30 days (`NOT_FOUND`)' },
      handler: async (ctx, { path, principal }) => {
        const event = await findEvent(deps.db, modeOf(principal.livemode), { orgId: path.org_oid, id: path.event_id, audience: audienceOf(principal) });
        if (!event) throw new NotFoundError('Event not found');
        ctx.body = presentEvent(event);
      },
    }),
  ];
}
