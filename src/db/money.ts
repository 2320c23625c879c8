/**
 * Amounts are integer minor units (cents), stored as bigint. node-postgres returns bigint as text;
 * this turns it into a number and refuses one that a number cannot hold exactly.
 */
export function minorUnits(value: string | number): number {
  const amount = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(amount)) throw new RangeError(`amount ${value} is not an exact integer`);
  return amount;
}

export const CURRENCY = 'USD';
export type Currency = typeof CURRENCY;
