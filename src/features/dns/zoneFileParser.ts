/**
 * A reader of RFC 1035 master files (section 5), as other DNS hosts export them: `$ORIGIN`, `$TTL`,
 * `@`, relative and absolute owner names, an omitted owner (the previous one), omitted TTL and class
 * (IN only), quoted strings with `\X` and `\DDD` escapes, parentheses spanning lines, and `;`
 * comments anywhere outside quotes. It only reads: which records we take, and what they may hold, is
 * zoneFileImport.ts's and records.ts's business. Every problem names its line (the line an entry
 * starts on, for entries spanning lines in parentheses).
 *
 * Written here rather than taken from npm: the parsers there (dns-zonefile and its forks) split
 * lines with regular expressions, so they lose line numbers, drop types they do not know, break on
 * `;` inside a quoted TXT and do not decode escapes.
 */

export interface ZoneToken {
  /** The text with escapes decoded (`\"` is `"`, `\065` is `A`). */
  value: string;
  /** As written, escapes kept (names are compared as written, lower-cased). */
  raw: string;
  quoted: boolean;
}

export interface ZoneEntry {
  /** The line the entry starts on (1-based). */
  line: number;
  /** Absolute, lower case, without the trailing dot. */
  name: string;
  ttl: number;
  /** Upper case: `A`, `MX`, `TYPE65`. */
  type: string;
  rdata: ZoneToken[];
  /** The origin in force on that line: relative names in the data are relative to it. */
  origin: string;
  /** The file was another zone's (its first `$ORIGIN`): names in the data under it belong under ours. */
  copiedFrom?: string;
}

export interface ZoneFileProblem {
  line: number;
  message: string;
  type: string;
}

/** Every problem found, in line order; nothing was taken from the file. */
export class ZoneFileSyntaxError extends Error {
  constructor(readonly problems: ZoneFileProblem[]) {
    super(problems.map((p) => `line ${p.line}: ${p.message}`).join('; '));
    this.name = 'ZoneFileSyntaxError';
  }
}

/** More problems than this are not worth listing: the file is not a zone file. */
const MAX_PROBLEMS = 50;
const TTL_UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800 };
const CLASSES = new Set(['IN', 'CH', 'HS', 'CS', 'NONE', 'ANY']);
const TYPE_NAME = /^(?:[A-Z][A-Z0-9-]*|TYPE\d{1,5})$/;

interface LogicalLine {
  line: number;
  /** The line began with a space or tab: the owner is the previous entry's. */
  ownerOmitted: boolean;
  tokens: ZoneToken[];
}

/** `3600`, or BIND's `1h30m` form; undefined when the token is not a TTL. */
export function parseTtl(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^(?:\d+[smhdw])+$/i.test(text)) return undefined;
  let total = 0;
  for (const [, n, unit] of text.toLowerCase().matchAll(/(\d+)([smhdw])/g)) total += Number(n) * TTL_UNITS[unit!]!;
  return total;
}

/**
 * Splits the text into entries: one per line, or per parenthesised group of lines. Comments and
 * blank lines go; quoted strings stay one token each, with escapes decoded.
 */
function tokenize(text: string, problems: ZoneFileProblem[]): LogicalLine[] {
  const lines: LogicalLine[] = [];
  let line = 1;
  let current: LogicalLine | undefined;
  let openedAt = 0;
  let depth = 0;
  let i = 0;
  const problem = (at: number, message: string, type: string) => problems.push({ line: at, message, type });
  const entry = (): LogicalLine => {
    current ??= { line, ownerOmitted: false, tokens: [] };
    return current;
  };
  const endLine = () => {
    if (current && current.tokens.length > 0) lines.push(current);
    current = undefined;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      line += 1;
      i += 1;
      if (depth === 0) endLine();
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      // White space at the very start of a line (outside parentheses) stands for the previous owner.
      if (depth === 0 && !current && (i === 0 || text[i - 1] === '\n')) current = { line, ownerOmitted: true, tokens: [] };
      i += 1;
      continue;
    }
    if (c === ';') {
      while (i < text.length && text[i] !== '\n') i += 1;
      continue;
    }
    if (c === '(') {
      if (depth === 0) openedAt = line;
      depth += 1;
      entry();
      i += 1;
      continue;
    }
    if (c === ')') {
      if (depth === 0) problem(line, '")" without an opening "("', 'parenthesis_unbalanced');
      else depth -= 1;
      i += 1;
      continue;
    }
    const start = line;
    const read = c === '"' ? readQuoted(text, i + 1) : readWord(text, i);
    if (read.error) problem(start, read.error, read.errorType ?? 'token_invalid');
    entry().tokens.push({ value: read.value, raw: read.raw, quoted: c === '"' });
    line += read.newlines;
    i = read.end;
  }
  if (depth > 0) problem(openedAt, 'The "(" opened on this line is never closed', 'parenthesis_unbalanced');
  endLine();
  return lines;
}

interface Read {
  value: string;
  raw: string;
  end: number;
  newlines: number;
  error?: string;
  errorType?: string;
}

/** `\X` is X; `\DDD` is the byte of that decimal value (RFC 1035 5.1). */
function readEscape(text: string, i: number): { value: string; end: number; error?: string } {
  const digits = /^\d{3}/.exec(text.slice(i + 1, i + 4));
  if (digits) {
    const code = Number(digits[0]);
    if (code > 255) return { value: '', end: i + 4, error: `"\\${digits[0]}" is not a byte (000–255)` };
    return { value: String.fromCharCode(code), end: i + 4 };
  }
  if (i + 1 >= text.length) return { value: '', end: i + 1, error: 'The file ends with a lone "\\"' };
  return { value: text[i + 1]!, end: i + 2 };
}

function readQuoted(text: string, from: number): Read {
  let value = '';
  let i = from;
  let newlines = 0;
  let error: string | undefined;
  while (i < text.length && text[i] !== '"') {
    if (text[i] === '\\') {
      const escaped = readEscape(text, i);
      error ??= escaped.error;
      if (text[i + 1] === '\n') newlines += 1;
      value += escaped.value;
      i = escaped.end;
      continue;
    }
    if (text[i] === '\n') return { value, raw: text.slice(from - 1, i), end: i, newlines, error: 'A quoted string runs past the end of its line (close it with ")', errorType: 'quote_unterminated' };
    value += text[i];
    i += 1;
  }
  if (i >= text.length) return { value, raw: text.slice(from - 1, i), end: i, newlines, error: 'A quoted string is never closed', errorType: 'quote_unterminated' };
  return { value, raw: text.slice(from - 1, i + 1), end: i + 1, newlines, ...(error ? { error, errorType: 'escape_invalid' } : {}) };
}

function readWord(text: string, from: number): Read {
  let value = '';
  let i = from;
  let error: string | undefined;
  while (i < text.length && !/[\s;()"]/.test(text[i]!)) {
    if (text[i] === '\\') {
      const escaped = readEscape(text, i);
      error ??= escaped.error;
      value += escaped.value;
      i = escaped.end;
      continue;
    }
    value += text[i];
    i += 1;
  }
  return { value, raw: text.slice(from, i), end: i, newlines: 0, ...(error ? { error, errorType: 'escape_invalid' } : {}) };
}

const strip = (name: string) => (name.endsWith('.') ? name.slice(0, -1) : name);

/**
 * A name as written, made absolute: `@` is the origin, a name ending in `.` is absolute, any other
 * is relative to the origin. Lower case, without the trailing dot (`""` for the root).
 */
export function absolutize(raw: string, origin: string): string {
  const name = raw.toLowerCase();
  if (name === '@') return origin;
  if (name.endsWith('.')) return strip(name);
  return origin === '' ? name : `${name}.${origin}`;
}

export interface ParseOptions {
  /** The zone's name, the origin until a `$ORIGIN` says otherwise (as `named-checkzone <zone>` takes it). */
  zone: string;
  /** Entries past this are refused, as one problem. */
  maxEntries?: number;
}

/**
 * The file's entries, with names made absolute and TTLs filled in (explicit, else `$TTL`, else the
 * last one given); or ZoneFileSyntaxError listing every problem with its line. Names outside the
 * zone are problems too: a zone file speaks for one zone. A file whose first `$ORIGIN` names another
 * zone (exported from another domain) is read as that zone's and its names moved onto this one, so
 * an export of one domain imports into another as a copy.
 */
export function parseZoneFile(text: string, options: ParseOptions): ZoneEntry[] {
  const zone = strip(options.zone.toLowerCase());
  const problems: ZoneFileProblem[] = [];
  const entries: ZoneEntry[] = [];
  // The zone the file speaks for: ours, unless its first $ORIGIN, before any record, names another
  // (an export of another domain, imported as a copy): its names are then moved onto ours.
  let fileZone = zone;
  const reroot = (name: string) => (fileZone === zone ? name : moveName(name, fileZone, zone));
  let origin = zone;
  let readRecord = false;
  let defaultTtl: number | undefined;
  let lastTtl: number | undefined;
  let lastOwner: string | undefined;
  for (const logical of tokenize(text, problems)) {
    if (problems.length >= MAX_PROBLEMS) break;
    const problem = (message: string, type: string) => problems.push({ line: logical.line, message, type });
    const [first, ...rest] = logical.tokens;
    if (!logical.ownerOmitted && first && !first.quoted && first.raw.startsWith('$')) {
      const directive = first.raw.toUpperCase();
      if (directive === '$ORIGIN') {
        if (rest.length !== 1 || rest[0]!.quoted) problem('$ORIGIN takes one name', 'directive_invalid');
        else if (!rest[0]!.raw.endsWith('.')) problem(`$ORIGIN must be an absolute name ending in ".", not "${rest[0]!.raw}"`, 'directive_invalid');
        else {
          origin = absolutize(rest[0]!.raw, origin);
          if (!readRecord && !inZone(origin, fileZone)) fileZone = origin;
          else if (!inZone(origin, fileZone)) problem(`$ORIGIN ${rest[0]!.raw} is outside the zone ${fileZone}`, 'name_outside_zone');
        }
      } else if (directive === '$TTL') {
        const ttl = rest.length === 1 ? parseTtl(rest[0]!.raw) : undefined;
        if (ttl === undefined) problem(`$TTL takes one TTL in seconds (or 1h30m), not "${rest.map((t) => t.raw).join(' ')}"`, 'directive_invalid');
        else defaultTtl = ttl;
      } else {
        problem(`${first.raw} is not supported (only $ORIGIN and $TTL): give the records themselves`, 'directive_unsupported');
      }
      continue;
    }
    readRecord = true;
    let tokens = logical.tokens;
    let owner: string;
    if (logical.ownerOmitted) {
      if (lastOwner === undefined) {
        problem('The first record has no owner name (the line starts with white space)', 'owner_missing');
        continue;
      }
      owner = lastOwner;
    } else {
      owner = absolutize(tokens[0]!.raw, origin);
      tokens = tokens.slice(1);
      if (!inZone(owner, fileZone)) {
        problem(`"${logical.tokens[0]!.raw}" (${owner}.) is outside the zone ${fileZone}`, 'name_outside_zone');
        continue;
      }
      owner = reroot(owner);
    }
    lastOwner = owner;
    let ttl: number | undefined;
    let klass: string | undefined;
    // TTL and class may come in either order, each at most once (RFC 1035 5.1).
    while (tokens.length > 0 && !tokens[0]!.quoted) {
      const word = tokens[0]!.raw;
      const asTtl = ttl === undefined ? parseTtl(word) : undefined;
      if (asTtl !== undefined) ttl = asTtl;
      else if (klass === undefined && CLASSES.has(word.toUpperCase())) klass = word.toUpperCase();
      else break;
      tokens = tokens.slice(1);
    }
    const typeToken = tokens[0];
    if (!typeToken || typeToken.quoted || !TYPE_NAME.test(typeToken.raw.toUpperCase())) {
      problem(typeToken ? `"${typeToken.raw.slice(0, 40)}" is not a record type` : 'A record needs a type and its data', 'type_missing');
      continue;
    }
    if (klass !== undefined && klass !== 'IN') {
      problem(`Class ${klass}: only IN records can be imported`, 'class_unsupported');
      continue;
    }
    if (ttl !== undefined) lastTtl = ttl;
    const effective = ttl ?? defaultTtl ?? lastTtl;
    if (effective === undefined) {
      problem('No TTL: give one on the record or a $TTL line before it', 'ttl_missing');
      continue;
    }
    if (effective > 2_147_483_647) {
      problem(`TTL ${effective} is larger than 2147483647`, 'ttl_invalid');
      continue;
    }
    entries.push({ line: logical.line, name: owner, ttl: effective, type: typeToken.raw.toUpperCase(), rdata: tokens.slice(1), origin: reroot(origin), ...(fileZone === zone ? {} : { copiedFrom: fileZone }) });
    if (options.maxEntries !== undefined && entries.length > options.maxEntries) {
      problem(`More than ${options.maxEntries} records: import the zone in parts`, 'too_many_records');
      break;
    }
  }
  if (problems.length > 0) throw new ZoneFileSyntaxError(problems.slice(0, MAX_PROBLEMS).sort((a, b) => a.line - b.line));
  return entries;
}

/** `name` (inside `from`) as the same name inside `to`. */
export function moveName(name: string, from: string, to: string): string {
  return name === from ? to : `${name.slice(0, -from.length)}${to}`;
}

/** The zone itself or a name below it. */
export function inZone(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}
