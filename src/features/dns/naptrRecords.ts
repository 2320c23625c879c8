import { PRINTABLE_ASCII, absolute, contentIssue, hostName, unsigned, type ContentCheck } from './recordSyntax.js';

/**
 * NAPTR records (RFC 3403): `order preference "flags" "services" "regexp" replacement`, e.g.
 * `100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .` Stored as PowerDNS writes them back: the
 * three strings quoted with `"` and `\` escaped, flags upper case, the replacement host name without
 * its trailing dot (or "." when the regexp gives the result).
 */
const CHARACTER_STRING_MAX = 255;
const SHAPE = 'Must be "order preference flags services regexp replacement", e.g. 100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .';

/**
 * Reads one zone-file character string at `from`: quoted, or a run without white space; `\X` is X
 * and `\DDD` the byte DDD. Answers the text and where reading stopped, or undefined when malformed.
 */
function characterString(text: string, from: number): { value: string; end: number } | undefined {
  let i = from;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  const quoted = text[i] === '"';
  if (quoted) i++;
  let value = '';
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted ? c === '"' : /\s/.test(c)) break;
    if (c !== '\\') {
      value += c;
      continue;
    }
    const digits = /^\d{3}/.exec(text.slice(i + 1, i + 4));
    if (digits && Number(digits[0]) <= 255) {
      value += String.fromCharCode(Number(digits[0]));
      i += 3;
    } else if (i + 1 < text.length) value += text[++i];
    else return undefined;
  }
  if (quoted && text[i] !== '"') return undefined;
  return { value, end: quoted ? i + 1 : i };
}

const quote = (value: string) => `"${value.replace(/[\\"]/g, '\\$&')}"`;

/** `delim ere delim replacement delim [i]` (RFC 3403 section 3.2), the delimiter escaped with `\` inside. */
function isSubstitution(regexp: string): boolean {
  const delim = regexp[0]!;
  if (/[\d\\i]/.test(delim)) return false;
  const at: number[] = [];
  for (let i = 0; i < regexp.length; i++) {
    if (regexp[i] === '\\') i++;
    else if (regexp[i] === delim) at.push(i);
  }
  return at.length === 3 && at[1]! > 1 && ['', 'i'].includes(regexp.slice(at[2]! + 1));
}

export function checkNaptr(content: string): ContentCheck {
  const bad = (message: string) => contentIssue(message, 'naptr_invalid');
  const numbers = /^\s*(\S+)\s+(\S+)\s/.exec(content);
  if (!numbers) return bad(SHAPE);
  const order = unsigned(numbers[1], 65_535);
  if (order === undefined) return bad('Order must be 0–65535 (lower is processed first)');
  const preference = unsigned(numbers[2], 65_535);
  if (preference === undefined) return bad('Preference must be 0–65535 (lower is preferred within one order)');
  const strings: string[] = [];
  let at = numbers[0].length;
  for (let n = 0; n < 3; n++) {
    const read = characterString(content, at);
    if (!read) return bad(SHAPE);
    strings.push(read.value);
    at = read.end;
  }
  const [flags, services, regexp] = strings as [string, string, string];
  const rest = content.slice(at).trim();
  if (rest === '' || /\s/.test(rest)) return bad(SHAPE);
  if (strings.some((s) => s.length > CHARACTER_STRING_MAX || !PRINTABLE_ASCII.test(s))) return bad(`Flags, services and regexp must each be printable ASCII, at most ${CHARACTER_STRING_MAX} characters`);
  if (!/^[A-Za-z0-9]*$/.test(flags) || (flags.toUpperCase().match(/[SAUP]/g) ?? []).length > 1) {
    return bad('Flags must be letters or digits with at most one of S, A, U and P, e.g. "U", "S" or ""');
  }
  if (!/^[A-Za-z0-9+:._-]*$/.test(services)) return bad('Services must be letters, digits and "+", ":", ".", "_", "-", e.g. "E2U+sip" or "SIP+D2U"');
  if (regexp !== '' && !isSubstitution(regexp)) return bad('Regexp must be empty or "!pattern!replacement!" (any delimiter that is not a digit, "\\" or "i"), e.g. "!^.*$!sip:info@example.com!"');
  const replacement = rest === '.' ? '.' : hostName(rest, { underscores: true });
  if (!replacement) return bad('Replacement must be a fully qualified host name such as _sip._udp.example.com, or "." when the regexp gives the result');
  if ((regexp === '') === (replacement === '.')) {
    return bad(regexp === '' ? 'Give a regexp or a replacement: both are empty' : 'Give a regexp or a replacement, not both: the replacement must be "." when there is a regexp');
  }
  return { content: [order, preference, quote(flags.toUpperCase()), quote(services), quote(regexp), replacement].join(' ') };
}

/** The stored form with the replacement (its last field) written absolute. */
export function presentNaptr(content: string): string {
  const last = content.lastIndexOf(' ');
  return `${content.slice(0, last)} ${absolute(content.slice(last + 1))}`;
}
