import { describe, expect, it } from 'vitest';
import { newId, randomBase62 } from './ids.js';

describe('random ids', () => {
  it('are 22 base62 characters after their prefix, and never repeat', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('req'));
    for (const id of ids.slice(0, 100)) expect(id).toMatch(/^req_[0-9A-Za-z]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('use every character about equally often, across many refills of the random pool', () => {
    const text = randomBase62(124_000);
    const counts = new Map<string, number>();
    for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 2,000 expected per character; a skew (say byte % 62 without rejection) puts some 25 % above.
    for (const count of counts.values()) expect(Math.abs(count - 2_000)).toBeLessThan(300);
  });
});
