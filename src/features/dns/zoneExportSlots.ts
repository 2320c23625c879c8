import { StreamSlots, type SlotHolder } from '../../db/snapshotStream.js';
import { ApiError, ServiceUnavailableError } from '../../errors.js';
import { PLAN_MULTIPLIERS } from '../../rateLimit/groups.js';
import type { Organization } from '../../auth/organizations.js';

/** Exports of more than one batch each hold a pooled connection while read: at most this many at once per process. */
const EXPORTS_STREAMED_AT_ONCE = 3;
/** Of those, what one organisation may hold on the free plan: times the plan, never more than the process's. */
const EXPORTS_PER_ORG = 1;
const RETRY_AFTER_SECONDS = 5;

/** 429: the organisation is reading as many large zone files from this api process at once as its plan allows. */
export class ZoneExportLimitError extends ApiError {
  constructor(limit: number) {
    super(
      429,
      'RATE_LIMITED',
      `This organisation is already reading ${limit} large zone file${limit === 1 ? '' : 's'} from this server at once, the most its plan allows; retry once one has been read`,
      { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    );
  }
}

/**
 * The large zone exports one api process streams at once (docs/api-guide.md, Zone files): a few for
 * everyone, and of them one per organisation on the free plan (more on larger plans), so slow readers
 * of one organisation never hold every slot. A reader that stops reading frees its slot within
 * SNAPSHOT_STREAM_STALL_MS (src/db/snapshotStream.ts).
 */
export function zoneExportSlots(): { slots: StreamSlots; holderOf: (org: Pick<Organization, 'id' | 'plan'>) => SlotHolder } {
  const slots = new StreamSlots(
    EXPORTS_STREAMED_AT_ONCE,
    () => new ServiceUnavailableError('ZONE_EXPORT_BUSY', 'Too many large zone files are being read from this server at once; retry shortly', RETRY_AFTER_SECONDS),
  );
  const holderOf = (org: Pick<Organization, 'id' | 'plan'>): SlotHolder => {
    const max = Math.min(EXPORTS_STREAMED_AT_ONCE, EXPORTS_PER_ORG * PLAN_MULTIPLIERS[org.plan]);
    return { key: org.id, max, busy: () => new ZoneExportLimitError(max) };
  };
  return { slots, holderOf };
}
