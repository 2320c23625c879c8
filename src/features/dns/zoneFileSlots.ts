import { StreamSlots, type SlotHolder } from '../../db/snapshotStream.js';
import { ApiError, ServiceUnavailableError } from '../../errors.js';
import { PLAN_MULTIPLIERS } from '../../rateLimit/groups.js';
import type { Organization } from '../../auth/organizations.js';

/** Exports of more than one batch each hold a pooled connection while read: at most this many at once per process. */
const EXPORTS_STREAMED_AT_ONCE = 3;
/** Of those, what one organisation may hold on the free plan: times the plan, never more than the process's. */
const EXPORTS_PER_ORG = 1;
/**
 * Imports each hold their file (up to 8 MB, read whole before it is parsed) and its records while
 * they are checked and written: at most this many at once per process, one per organisation on the
 * free plan (times the plan), so one tenant's files never fill a process's memory (docs/api-guide.md, Zone files).
 */
const IMPORTS_AT_ONCE = 4;
const IMPORTS_PER_ORG = 1;
const RETRY_AFTER_SECONDS = 5;

/** 429: the organisation is reading or sending as many zone files on this api process at once as its plan allows. */
export class ZoneFileSlotLimitError extends ApiError {
  constructor(limit: number, what: 'reading large zone files from' | 'importing zone files into') {
    super(
      'RATE_LIMITED',
      `This organisation is already ${what} this server ${limit === 1 ? 'one at a time' : `${limit} at once`}, the most its plan allows; retry once one has been answered`,
      { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
    );
  }
}

type ZoneFileSlots = { slots: StreamSlots; holderOf: (org: Pick<Organization, 'id' | 'plan'>) => SlotHolder };

/** `atOnce` per process for everyone, `perOrg` of them per organisation on the free plan (times the plan, never more than the process's). */
function slotsPerOrganization(atOnce: number, perOrg: number, processBusy: () => Error, what: 'reading large zone files from' | 'importing zone files into'): ZoneFileSlots {
  const slots = new StreamSlots(atOnce, processBusy);
  const holderOf = (org: Pick<Organization, 'id' | 'plan'>): SlotHolder => {
    const max = Math.min(atOnce, perOrg * PLAN_MULTIPLIERS[org.plan]);
    return { key: org.id, max, busy: () => new ZoneFileSlotLimitError(max, what) };
  };
  return { slots, holderOf };
}

/** The zone file imports one api process takes at once (IMPORTS_AT_ONCE, IMPORTS_PER_ORG). */
export function zoneImportSlots(): ZoneFileSlots {
  const busy = () => new ServiceUnavailableError('ZONE_IMPORT_BUSY', 'Too many zone files are being imported on this server at once; retry shortly', RETRY_AFTER_SECONDS);
  return slotsPerOrganization(IMPORTS_AT_ONCE, IMPORTS_PER_ORG, busy, 'importing zone files into');
}

/**
 * The large zone exports one api process streams at once (docs/api-guide.md, Zone files): a few for
 * everyone, and of them one per organisation on the free plan (more on larger plans), so slow readers
 * of one organisation never hold every slot. A reader that stops reading frees its slot within
 * SNAPSHOT_STREAM_STALL_MS (src/db/snapshotStream.ts).
 */
export function zoneExportSlots(): ZoneFileSlots {
  const busy = () => new ServiceUnavailableError('ZONE_EXPORT_BUSY', 'Too many large zone files are being read from this server at once; retry shortly', RETRY_AFTER_SECONDS);
  return slotsPerOrganization(EXPORTS_STREAMED_AT_ONCE, EXPORTS_PER_ORG, busy, 'reading large zone files from');
}
