import { describe, expect, it } from 'vitest';
import { ratioRow, summarise } from './report.js';

describe('bench rows', () => {
  it('takes nearest-rank percentiles whatever the order of the samples', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(summarise(samples)).toEqual({ p50: 50, p99: 99, max: 100, count: 100 });
    expect(summarise([])).toEqual({ p50: 0, p99: 0, max: 0, count: 0 });
  });

  it('says a throughput target is met only at or above its share of the floor', () => {
    const floor = { name: 'bare Koa route', value: 20_000 };
    expect(ratioRow({ section: 's', name: 'me', value: 12_000, unit: 'req/s', floor, atLeast: 0.6 })).toMatchObject({ ratio: 0.6, target: { met: true } });
    expect(ratioRow({ section: 's', name: 'me', value: 11_999, unit: 'req/s', floor, atLeast: 0.6 }).target?.met).toBe(false);
  });

  it('says a latency target is met only at or below its multiple of the floor', () => {
    const floor = { name: 'PATCH straight to PowerDNS', value: 4 };
    expect(ratioRow({ section: 's', name: 'dns', value: 6, unit: 'ms', floor, atMost: 1.5 })).toMatchObject({ ratio: 1.5, target: { met: true } });
    expect(ratioRow({ section: 's', name: 'dns', value: 6.1, unit: 'ms', floor, atMost: 1.5 }).target?.met).toBe(false);
    expect(ratioRow({ section: 's', name: 'dns', value: 6.1, unit: 'ms', floor }).target).toBeUndefined();
  });
});
