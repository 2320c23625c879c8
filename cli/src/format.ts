import { CliError } from './errors.js';

/** Integer minor units of USD as money: 1234 → $12.34. */
export function money(amount: number, currency = 'USD'): string {
  const sign = amount < 0 ? '-' : '';
  const text = `${sign}${(Math.abs(amount) / 100).toFixed(2)}`;
  return currency === 'USD' ? `$${text}` : `${text} ${currency}`;
}

/** `30s`, `10m`, `2h` or plain seconds, as milliseconds (for --timeout). */
export function parseDuration(text: string): number {
  const match = /^(\d+)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new CliError(`${text} is not a duration; give e.g. 90s, 10m or 1h`, 'usage');
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms'];
  return Number(match[1]) * unit;
}

/** A whole number for an option, or a usage error naming the option. */
export function wholeNumber(option: string, min = 0): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < min) throw new CliError(`${option} takes a whole number${min > 0 ? ` from ${min}` : ''}, not ${text}`, 'usage');
    return value;
  };
}

/** `on`/`off` (or yes/no, true/false) for a setting. */
export function onOff(option: string): (text: string) => boolean {
  return (text) => {
    if (/^(on|yes|true)$/i.test(text)) return true;
    if (/^(off|no|false)$/i.test(text)) return false;
    throw new CliError(`${option} takes on or off, not ${text}`, 'usage');
  };
}

/** A comma-separated list (repeatable options add up). */
export function list(text: string, previous: string[] = []): string[] {
  return [...previous, ...text.split(',').map((item) => item.trim()).filter(Boolean)];
}

/** A date-time for a person: `2026-11-25 18:04 UTC`. */
export function when(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—';
}
