import type { RecordFields, RecordType } from './records.js';
import type { RRsetChange } from './provider/index.js';

/**
 * The change that makes the RRset of `name` and `type` exactly these records, or removes it when
 * there are none. The provider keeps one TTL per RRset: the lowest of its records'.
 */
export function rrsetChange(name: string, type: RecordType, records: RecordFields[]): RRsetChange {
  if (records.length === 0) return { changetype: 'DELETE', name, type };
  return { changetype: 'REPLACE', name, type, ttl: Math.min(...records.map((r) => r.ttl)), records };
}

/** Every RRset these records make, as one change each: what a zone made afresh is given. */
export function rrsetsOf(records: RecordFields[]): RRsetChange[] {
  const sets = new Map<string, RecordFields[]>();
  for (const record of records) {
    const key = `${record.name} ${record.type}`;
    sets.set(key, [...(sets.get(key) ?? []), record]);
  }
  return [...sets.values()].map((set) => rrsetChange(set[0]!.name, set[0]!.type, set));
}
