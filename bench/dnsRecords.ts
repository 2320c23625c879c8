import { checkRecord } from '../src/features/dns/records.js';

/**
 * Time to check one 100-record batch of large CAA iodef records, the worst inputs for a backtracking
 * pattern (many `@`, white space at the end): the check runs on the event loop, so this is how
 * long every other request waits.
 */
export function benchCaaBatch(): { variant: string; batchMs: number }[] {
  const variants = {
    'mailto, no @': `mailto:${'a'.repeat(2_000)}`,
    'mailto, many @': `mailto:${'@'.repeat(1_000)} x`,
    'mailto, a@ repeated': `mailto:${'a@'.repeat(1_000)} `,
  };
  return Object.entries(variants).map(([variant, value]) => {
    const record = { type: 'CAA' as const, name: '@', content: `0 iodef "${value}"`, ttl: 3600, priority: null };
    const started = performance.now();
    for (let i = 0; i < 100; i += 1) checkRecord(record, 'example.com');
    return { variant, batchMs: performance.now() - started };
  });
}
