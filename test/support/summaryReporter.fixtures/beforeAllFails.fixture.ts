import { beforeAll, describe, expect, it } from 'vitest';

// As a file whose service (PowerDNS, Chromium) is missing: its tests never run.
beforeAll(() => {
  throw new Error('the service this file needs is not there');
});

describe('a file whose beforeAll fails', () => {
  it('would pass', () => expect(1).toBe(1));
  it('would pass too', () => expect(2).toBe(2));
});
