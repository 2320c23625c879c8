import { destinationHost } from './addressPolicy.js';

/**
 * The longest a delivery attempt waits for its turn at the destination host before it hands the
 * wait back to its workflow (a durable timer) rather than hold an activity slot.
 */
export const LONGEST_WAIT_IN_ATTEMPT_MS = 1_000;

/**
 * The longest a delivery of a run started before pacing was handed back (it cannot be told to come
 * back later) waits for its turn; past that it is sent without one. Inside the attempt's 30 s slack.
 */
export const LONGEST_WAIT_UNDEFERRABLE_MS = 20_000;

/**
 * Deliveries are paced per organisation and destination host: every endpoint of one organisation on
 * one host shares one pace, so fanning an event out to many endpoints there, or retrying them all,
 * cannot hammer that host.
 */
export function paceKey(endpoint: { orgId: string; url: string }): string {
  return `${endpoint.orgId}:${URL.canParse(endpoint.url) ? destinationHost(new URL(endpoint.url)) : endpoint.url}`;
}
