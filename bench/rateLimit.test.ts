import { describe, expect, inject, it } from 'vitest';
import { benchConsume } from './rateLimit.js';

describe('benchConsume', () => {
  it('measures every iteration against Redis (no timing asserted)', async () => {
    const result = await benchConsume(100, { redisUrl: inject('redisUrl'), warmup: 10 });
    expect(result).toMatchObject({ iterations: 100, allowed: 100, degraded: 0 });
    expect(result.p50Ms).toBeGreaterThan(0);
    expect(result.p50Ms).toBeLessThanOrEqual(result.p99Ms);
    expect(result.p99Ms).toBeLessThanOrEqual(result.maxMs);
  });

  it('refuses to report numbers when Redis is unreachable', async () => {
    await expect(benchConsume(10, { redisUrl: 'redis://127.0.0.1:1' })).rejects.toThrow(/not reachable/);
  });
});
