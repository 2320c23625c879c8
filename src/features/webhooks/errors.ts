/**
 * The errors webhooks refuses with, beside it: each names its code of the one list
 * (src/http/errorCodes.ts), whose entry gives the HTTP status, and its words.
 */
import { ApiError, ConflictError } from '../../errors.js';

/** 409: the organisation, or the caller within it, has as many event streams open in this mode as it may; one must end first. */
export class EventStreamLimitError extends ConflictError {
  constructor(props: { limit: number; whose: 'organization' | 'user' }) {
    const holder = props.whose === 'organization' ? 'This organisation already has' : 'You already have';
    super(
      'EVENT_STREAM_LIMIT',
      `${holder} ${props.limit} event streams open in this organisation and mode, the most ${props.whose === 'organization' ? 'it' : 'one member'} may have; ` +
        'end one (or wait a minute for one that was cut off) first',
    );
  }
}

/**
 * 409: so many of the organisation's webhook deliveries in this mode wait for their endpoints that
 * nothing more may be added until they drain: waiting does not mend it, a failing endpoint fixed or
 * disabled does, so no Retry-After.
 */
export class WebhookBacklogLimitError extends ConflictError {
  constructor(limit: number) {
    super(
      'WEBHOOK_BACKLOG_LIMIT',
      `This organisation has ${limit} webhook deliveries in this mode waiting for their endpoints, the most it may have; nothing that emits an event ` +
        'is accepted until some are delivered. Fix the failing endpoint (its deliveries show why) or disable it: its waiting deliveries then stop counting',
    );
  }
}

/** 409: the organisation has as many webhook endpoints in this mode as it may; one must go first. */
export class WebhookEndpointLimitError extends ConflictError {
  constructor(limit: number) {
    super('WEBHOOK_ENDPOINT_LIMIT', `This organisation already has ${limit} webhook endpoints in this mode, the most it may have; delete one it no longer uses first`);
  }
}

/** 429: the events an organisation's requests may emit this minute in this mode are spent; nothing was changed. */
export class EventBudgetSpentError extends ApiError {
  constructor(props: { perMinute: number; retryAfterSeconds: number }) {
    super(
      'RATE_LIMITED',
      `This organisation's requests have emitted ${props.perMinute} events this minute in this mode, the most they may (every key and member together); ` +
        `nothing was changed. Retry after ${props.retryAfterSeconds} s, or change many records in one batch: a batch is one event.`,
      { headers: { 'Retry-After': String(props.retryAfterSeconds) } },
    );
  }
}
