import type { Queryable } from '../../db/pool.js';
import { insertEvent, type EventType } from './events.repository.js';
import { derivedId, newId } from '../../ids.js';
import { domainOfEvent } from './eventDomains.js';
import { modeOf } from '../../db/modeScope.js';

export interface EmitEventProps {
  /** The transaction that makes the change the event describes (docs/api-guide.md, Webhooks and events). */
  db: Queryable;
  orgId: string;
  livemode: boolean;
  type: EventType;
  /** The resource as the API renders it (a presenter's output). */
  object: unknown;
  /** The resource as it was before the change, rendered the same way (`data.previous`); only where the event type has one. */
  previous?: unknown;
  /**
   * Makes the event idempotent: the same seed (e.g. a workflow id plus a step) always gives the same
   * event id, so a retried or replayed activity never emits twice.
   */
  dedupeSeed?: string;
}

/**
 * The one way an event is emitted, with the domain it is about read from its object (eventDomains.ts),
 * by which keys restricted to some domains are shown only theirs. Returns the event id. Nothing here
 * refuses: the budgets of events a customer's request may emit are checked before the request
 * changes anything (eventBudget.ts), so the system's own events are never dropped.
 */
export async function emitEvent({ db, orgId, livemode, type, object, previous, dedupeSeed }: EmitEventProps): Promise<string> {
  const id = dedupeSeed ? derivedId('evt', `event|${dedupeSeed}`) : newId('evt');
  const data = previous === undefined ? { object } : { object, previous };
  await insertEvent(db, modeOf(livemode), { id, orgId, type, data, domain: domainOfEvent(type, object) });
  return id;
}
