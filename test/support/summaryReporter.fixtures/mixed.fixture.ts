import { afterAll, describe, expect, it } from 'vitest';

describe('a suite that ran', () => {
  it('passes', () => expect(1).toBe(1));
  it('fails', () => expect(1).toBe(2));
  it.skip('is skipped on purpose', () => expect(1).toBe(1));
});

describe('a suite whose afterAll fails after its test passed', () => {
  afterAll(() => {
    throw new Error('cleanup failed');
  });
  it('passes', () => expect(1).toBe(1));
});
