/**
 * Decimal dollar amounts (DNSimple sends `20.0` as a JSON number in prices and takes `"20.00"` as a
 * string in `premium_price`) to and from integer cents, without binary floating-point arithmetic.
 */

/**
 * `"14.5"`, `14.5` or `"14.50"` → 1450. Fractions of a cent are rounded up, so we never quote
 * less than the registrar will charge. Throws on anything that is not a plain non-negative decimal.
 */
export function decimalToCents(value: string | number): number {
  // A JS number prints as the shortest decimal that reads back as itself: 14.5 → "14.5", 20.0 → "20".
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`Not a decimal amount: ${JSON.stringify(value)}`);
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').padEnd(2, '0');
  const cents = Number(whole) * 100 + Number(fraction.slice(0, 2));
  const roundUp = /[1-9]/.test(fraction.slice(2)) ? 1 : 0;
  const total = cents + roundUp;
  if (!Number.isSafeInteger(total)) throw new RangeError(`Amount out of range: ${JSON.stringify(value)}`);
  return total;
}

/** 1450 → `"14.50"`. */
export function centsToDecimal(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError(`Not a cent amount: ${cents}`);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
