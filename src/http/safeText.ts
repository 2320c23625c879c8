import type { FieldError } from '../errors.js';

/**
 * Text PostgreSQL cannot store (NUL) or that no encoding can represent (a UTF-16 surrogate without
 * its pair, which would be stored as U+FFFD). Every string a request carries is checked for these
 * before any schema or handler sees it, so no route has to remember to.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function unsafeTextReason(value: string): string | undefined {
  if (value.includes('\u0000')) return 'Must not contain NUL (\\u0000) characters';
  if (LONE_SURROGATE.test(value)) return 'Must not contain unpaired UTF-16 surrogates';
  return undefined;
}

/** One field error per string (value or object key) that holds unsafe text, at its location. */
export function unsafeTextErrors(value: unknown, loc: string[], out: FieldError[] = []): FieldError[] {
  if (typeof value === 'string') {
    const reason = unsafeTextReason(value);
    if (reason) out.push({ loc, msg: reason, type: 'string_unsafe' });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => unsafeTextErrors(item, [...loc, String(i)], out));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const keyReason = unsafeTextReason(key);
      if (keyReason) out.push({ loc: [...loc, key], msg: `Field name: ${keyReason}`, type: 'string_unsafe' });
      else unsafeTextErrors(item, [...loc, key], out);
    }
  }
  return out;
}
