import { describe, expect, it } from 'vitest';
import { groupBy } from './grouping.js';

describe('groupBy', () => {
  it('keeps each group in the order of its items, and the groups in the order they first came', () => {
    const groups = groupBy(['www A 1', 'mail MX 1', 'www A 2', 'www TXT 1', 'mail MX 2'], (line) => line.split(' ').slice(0, 2).join(' '));
    expect([...groups]).toEqual([
      ['www A', ['www A 1', 'www A 2']],
      ['mail MX', ['mail MX 1', 'mail MX 2']],
      ['www TXT', ['www TXT 1']],
    ]);
  });

  it('builds a group of 100,000 members in place', () => {
    const groups = groupBy(Array.from({ length: 100_000 }, (_, i) => i), () => 'one');
    expect(groups.get('one')).toHaveLength(100_000);
    expect(groups.get('one')![99_999]).toBe(99_999);
  });
});
