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

import { logicalLines, MAX_PROBLEMS, type ZoneFileProblem, type ZoneToken } from './zoneFileTokens.js';

export { MAX_PROBLEMS, type ZoneFileProblem, type ZoneToken } from './zoneFileTokens.js';

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

/** Every problem found, in line order; nothing was taken from the file. */
export class ZoneFileSyntaxError extends Error {
  constructor(readonly problems: ZoneFileProblem[]) {
    super(problems.map((p) => `line ${p.line}: ${p.message}`).join('; '));
    this.name = 'ZoneFileSyntaxError';
  }
}

const TTL_UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800 };
const CLASSES = new Set(['IN', 'CH', 'HS', 'CS', 'NONE', 'ANY']);
const TYPE_NAME = /^(?:[A-Z][A-Z0-9-]*|TYPE\d{1,5})$/;

/** `3600`, or BIND's `1h30m` form; undefined when the token is not a TTL. */
export function parseTtl(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^(?:\d+[smhdw])+$/i.test(text)) return undefined;
  let total = 0;
  for (const [, n, unit] of text.toLowerCase().matchAll(/(\d+)([smhdw])/g)) total += Number(n) * TTL_UNITS[unit!]!;
  return total;
}

/** Text of the file quoted in a problem: enough to find it, never the whole of a long token. */
export const shown = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);

/** The problems in line order, at most MAX_PROBLEMS. */
export const inLineOrder = (problems: ZoneFileProblem[]) => problems.slice(0, MAX_PROBLEMS).sort((a, b) => a.line - b.line);

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
  /** Entries past this are refused, as one problem, and so are `$ORIGIN` and `$TTL` lines past this many. */
  maxEntries?: number;
  /** Lines past this are refused, as one problem: blank and comment lines are read too. */
  maxLines?: number;
}

/**
 * The file's entries, with names made absolute and TTLs filled in (explicit, else `$TTL`, else the
 * last one given); or ZoneFileSyntaxError listing every problem with its line. Names outside the
 * zone are problems too: a zone file speaks for one zone. A file whose first `$ORIGIN` names another
 * zone (exported from another domain) is read as that zone's and its names moved onto this one, so
 * an export of one domain imports into another as a copy.
 */
export function parseZoneFile(text: string, options: ParseOptions): ZoneEntry[] {
  const problems: ZoneFileProblem[] = [];
  const entries = [...zoneEntries(text, options, problems)];
  if (problems.length > 0) throw new ZoneFileSyntaxError(inLineOrder(problems));
  return entries;
}

/**
 * parseZoneFile one entry at a time, for a caller that converts each as it comes (so a large file's
 * tokens are never all held at once). Problems go to `problems`, and the MAX_PROBLEMS-th ends the
 * reading (the tokenizer stops with it); entries yielded before a problem was found are not to be
 * taken once there is one.
 */
export function* zoneEntries(text: string, options: ParseOptions, problems: ZoneFileProblem[]): Generator<ZoneEntry, void, undefined> {
  const zone = strip(options.zone.toLowerCase());
  // The zone the file speaks for: ours, unless its first $ORIGIN, before any record, names another
  // (an export of another domain, imported as a copy): its names are then moved onto ours.
  let fileZone = zone;
  const reroot = (name: string) => (fileZone === zone ? name : moveName(name, fileZone, zone));
  let origin = zone;
  let readRecord = false;
  let defaultTtl: number | undefined;
  let lastTtl: number | undefined;
  let lastOwner: string | undefined;
  let entryCount = 0;
  let directiveCount = 0;
  const { maxEntries } = options;
  for (const logical of logicalLines(text, problems, options.maxLines)) {
    if (problems.length >= MAX_PROBLEMS) return;
    const problem = (message: string, type: string) => problems.push({ line: logical.line, message, type });
    const { tokens } = logical;
    const first = tokens[0]!;
    if (!logical.ownerOmitted && !first.quoted && first.raw.startsWith('$')) {
      directiveCount += 1;
      if (maxEntries !== undefined && directiveCount > maxEntries) {
        problem(`More than ${maxEntries} $ORIGIN and $TTL lines: this is not a zone file`, 'too_many_directives');
        return;
      }
      const rest = tokens.slice(1);
      const directive = first.raw.toUpperCase();
      if (directive === '$ORIGIN') {
        if (rest.length !== 1 || rest[0]!.quoted) problem('$ORIGIN takes one name', 'directive_invalid');
        else if (!rest[0]!.raw.endsWith('.')) problem(`$ORIGIN must be an absolute name ending in ".", not "${shown(rest[0]!.raw)}"`, 'directive_invalid');
        else {
          origin = absolutize(rest[0]!.raw, origin);
          if (!readRecord && !inZone(origin, fileZone)) fileZone = origin;
          else if (!inZone(origin, fileZone)) problem(`$ORIGIN ${shown(rest[0]!.raw)} is outside the zone ${fileZone}`, 'name_outside_zone');
        }
      } else if (directive === '$TTL') {
        const ttl = rest.length === 1 ? parseTtl(rest[0]!.raw) : undefined;
        if (ttl === undefined) problem(`$TTL takes one TTL in seconds (or 1h30m), not "${shown(rest.map((t) => t.raw).join(' '))}"`, 'directive_invalid');
        else defaultTtl = ttl;
      } else {
        problem(`${shown(first.raw)} is not supported (only $ORIGIN and $TTL): give the records themselves`, 'directive_unsupported');
      }
      continue;
    }
    readRecord = true;
    let next = 0;
    let owner: string;
    if (logical.ownerOmitted) {
      if (lastOwner === undefined) {
        problem('The first record has no owner name (the line starts with white space)', 'owner_missing');
        continue;
      }
      owner = lastOwner;
    } else {
      owner = absolutize(first.raw, origin);
      next = 1;
      if (!inZone(owner, fileZone)) {
        problem(`"${shown(first.raw)}" (${shown(owner)}.) is outside the zone ${fileZone}`, 'name_outside_zone');
        continue;
      }
      owner = reroot(owner);
    }
    lastOwner = owner;
    let ttl: number | undefined;
    let klass: string | undefined;
    // TTL and class may come in either order, each at most once (RFC 1035 5.1).
    while (next < tokens.length && !tokens[next]!.quoted) {
      const word = tokens[next]!.raw;
      const asTtl = ttl === undefined ? parseTtl(word) : undefined;
      if (asTtl !== undefined) ttl = asTtl;
      else if (klass === undefined && CLASSES.has(word.toUpperCase())) klass = word.toUpperCase();
      else break;
      next += 1;
    }
    const typeToken = tokens[next];
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
    entryCount += 1;
    if (maxEntries !== undefined && entryCount > maxEntries) {
      problem(`More than ${maxEntries} records: import the zone in parts`, 'too_many_records');
      return;
    }
    yield { line: logical.line, name: owner, ttl: effective, type: typeToken.raw.toUpperCase(), rdata: tokens.slice(next + 1), origin: reroot(origin), ...(fileZone === zone ? {} : { copiedFrom: fileZone }) };
  }
}

/** `name` (inside `from`) as the same name inside `to`. */
export function moveName(name: string, from: string, to: string): string {
  return name === from ? to : `${name.slice(0, -from.length)}${to}`;
}

/** The zone itself or a name below it. */
export function inZone(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}
