import { describe, expect, it } from 'vitest';
import { ApiError as SdkApiError } from '../../client/src/index.js';
import { webhookFailure } from './apiFailures.js';

const refused = (status: number, code: string) => webhookFailure(new SdkApiError({ status, code, detail: 'refused', requestId: 'req_1' }), new AbortController().signal);

describe('what external-dns is answered for a refusal of the api', () => {
  it('a zone at its record limit stays a 4xx: a later run cannot fix it, a person must', () => {
    expect(refused(409, 'ZONE_RECORD_LIMIT')).toMatchObject({ status: 409, code: 'ZONE_RECORD_LIMIT' });
  });

  it('a race with another edit becomes 503, retried at the next run', () => {
    expect(refused(409, 'VERSION_MISMATCH')).toMatchObject({ status: 503, code: 'VERSION_MISMATCH' });
  });
});
