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


/**
 * The RRsets of records read in RRset order (name, then type) in batches, as changes of about
 * `changeRecords` records each: an RRset is never split, so one larger than that is a change alone.
 */
export async function* rrsetChangesInBatches(batches: AsyncIterable<RecordFields[]>, changeRecords: number): AsyncGenerator<RRsetChange[]> {
  let changes: RRsetChange[] = [];
  let held = 0;
  let current: RecordFields[] = [];
  const close = () => {
    if (current.length === 0) return;
    changes.push(rrsetChange(current[0]!.name, current[0]!.type, current));
    held += current.length;
    current = [];
  };
  for await (const batch of batches) {
    for (const record of batch) {
      const last = current[current.length - 1];
      if (last && (last.name !== record.name || last.type !== record.type)) {
        close();
        if (held >= changeRecords) {
          yield changes;
          changes = [];
          held = 0;
        }
      }
      current.push(record);
    }
  }
  close();
  if (changes.length > 0) yield changes;
}
