import { createHash, randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Bytes from the system's CSPRNG, drawn a pool at a time: one call per id cost more than the id (docs/bench.md). */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Uniformly random base62 text (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix = 'usr' | 'org' | 'inv' | 'key' | 'op' | 'ct' | 'rec' | 'txn' | 'req' | 'evt' | 'dom' | 'we' | 'wd' | 'ntc' | 'tu' | 'mov' | 'acd' | 'emf' | 'ztr';

/** Public identifiers: a type prefix and 22 random base62 characters (~131 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}

/**
 * An id derived from a seed (e.g. a workflow id built from an Idempotency-Key): the same request
 * retried after a crash finds the same operation instead of making a second one.
 */
export function derivedId(prefix: IdPrefix, seed: string): string {
  const digest = createHash('sha256').update(`${prefix}|${seed}`).digest();
  let out = '';
  for (const byte of digest) {
    if (out.length === 22) break;
    out += BASE62[byte % 62];
  }
  return `${prefix}_${out}`;
}

/** A fixed id of the right shape, for the OpenAPI document's examples. */
export function exampleId(prefix: IdPrefix): string {
  return derivedId(prefix, 'example');
}
