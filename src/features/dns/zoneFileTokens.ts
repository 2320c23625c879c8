/**
 * The tokenizer of zoneFileParser.ts: a master file's text as entries of tokens, one entry per line
 * or per parenthesised group of lines. Comments and blank lines go; a quoted string is one token,
 * its escapes decoded.
 *
 * An import's body is whatever a client sends, so the work is bounded by the body's size with a
 * small constant, whatever its shape: the text is scanned once (runs of blanks, parentheses, blank
 * lines and word characters by the regular-expression engine), one entry is held at a time (the
 * caller takes each as it is read), a token is built only once its end is found within the span its
 * entry may still have (MAX_ENTRY_LENGTH), and reading stops at the MAX_PROBLEMS-th problem, whoever
 * found it, at an entry longer than any record, or past `maxLines`.
 */

export interface ZoneToken {
  /** The text with escapes decoded (`\"` is `"`, `\065` is `A`). */
  value: string;
  /** As written, escapes kept (names are compared as written, lower-cased). */
  raw: string;
  quoted: boolean;
}

export interface ZoneFileProblem {
  line: number;
  message: string;
  type: string;
}

export interface LogicalLine {
  line: number;
  /** The line began with a space or tab: the owner is the previous entry's. */
  ownerOmitted: boolean;
  tokens: ZoneToken[];
}

/** More problems than this are not worth listing: the file is not a zone file, and reading stops. */
export const MAX_PROBLEMS = 50;
/**
 * Characters one entry may span, comments and line breaks inside its parentheses included. A
 * record's data is at most 65,535 bytes on the wire and ours far less (TXT_MAX_LENGTH, even written
 * all in `\DDD` escapes, is a quarter of this).
 */
export const MAX_ENTRY_LENGTH = 64 * 1024;

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const SEMICOLON = 0x3b;
const OPEN = 0x28;
const CLOSE = 0x29;
const BACKSLASH = 0x5c;
/** Space, tab, CR, vertical tab and form feed separate tokens; a newline ends the line. */
const BLANK = new Uint8Array(128);
for (const c of ' \t\r\v\f') BLANK[c.charCodeAt(0)] = 1;

/**
 * The runs the scanner skips are left to the regular-expression engine, several times faster than a
 * loop over the characters. Each matches the empty string, so a sticky test always succeeds.
 */
const BLANKS = /[ \t\r\v\f]*/y;
const OPENS = /\(*/y;
const NEWLINES = /\n*/y;
const WORD_PART = /[^ \t\r\v\f\n;()"\\]*/y;
const QUOTED_PART = /[^"\\\n]*/y;

/** Past the run of `pattern` starting at `from`. */
function pastRun(pattern: RegExp, text: string, from: number): number {
  if (from >= text.length) return text.length;
  pattern.lastIndex = from;
  pattern.test(text);
  return pattern.lastIndex;
}

/** Where a token ends, and the newlines escaped inside it. */
interface Extent {
  end: number;
  newlines: number;
  /** It holds a `\`: its value is not its text. */
  escaped: boolean;
  /** A quoted string: its closing quote, or why there is none. */
  unterminated?: string;
}

/** Where the word starting at `from` ends (a `\` escapes the character after it); past `stop` it is too long, and not followed. */
function wordExtent(text: string, from: number, stop: number): Extent {
  let newlines = 0;
  let escaped = false;
  let i = pastRun(WORD_PART, text, from);
  while (i < stop && text.charCodeAt(i) === BACKSLASH) {
    escaped = true;
    if (text.charCodeAt(i + 1) === NEWLINE) newlines += 1;
    i = pastRun(WORD_PART, text, i + 2);
  }
  return { end: i, newlines, escaped };
}

/** Where the quoted string starting at `from` ends, as wordExtent. */
function quotedExtent(text: string, from: number, stop: number): Extent {
  let newlines = 0;
  let escaped = false;
  let i = pastRun(QUOTED_PART, text, from + 1);
  while (i < stop) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return { end: i + 1, newlines, escaped };
    if (c === NEWLINE) return { end: i, newlines, escaped, unterminated: 'A quoted string runs past the end of its line (close it with ")' };
    escaped = true;
    if (text.charCodeAt(i + 1) === NEWLINE) newlines += 1;
    i = pastRun(QUOTED_PART, text, i + 2);
  }
  return { end: i, newlines, escaped, unterminated: 'A quoted string is never closed' };
}

/** The text with `\X` read as X and `\DDD` as the byte of that decimal value (RFC 1035 5.1); the first bad escape named. */
function decoded(text: string): { value: string; error?: string } {
  const parts: string[] = [];
  let error: string | undefined;
  let done = 0;
  for (let at = text.indexOf('\\'); at >= 0; at = text.indexOf('\\', done)) {
    parts.push(text.slice(done, at));
    const digits = /^\d{3}/.exec(text.slice(at + 1, at + 4));
    if (digits) {
      const code = Number(digits[0]);
      if (code > 255) error ??= `"\\${digits[0]}" is not a byte (000–255)`;
      else parts.push(String.fromCharCode(code));
      done = at + 4;
    } else if (at + 1 >= text.length) {
      error ??= 'The file ends with a lone "\\"';
      done = text.length;
    } else {
      parts.push(text[at + 1]!);
      done = at + 2;
    }
  }
  parts.push(text.slice(done));
  return { value: parts.join(''), ...(error ? { error } : {}) };
}

/**
 * The entries of the text, each yielded once read. Problems go to `problems` (shared with the
 * caller, whose own problems count too): the MAX_PROBLEMS-th ends the reading, and so do an entry
 * spanning more than MAX_ENTRY_LENGTH characters and a line past `maxLines`.
 */
export function* logicalLines(text: string, problems: ZoneFileProblem[], maxLines = Infinity): Generator<LogicalLine, void, undefined> {
  const end = text.length;
  let line = 1;
  let depth = 0;
  let openedAt = 0;
  let current: LogicalLine | undefined;
  /** Where the current entry began: it may span MAX_ENTRY_LENGTH characters from there. */
  let entryStart = 0;
  let ownerOmitted = false;
  const problem = (at: number, message: string, type: string): boolean => problems.push({ line: at, message, type }) >= MAX_PROBLEMS;
  const tooLong = () => problem(current!.line, `An entry may span at most ${MAX_ENTRY_LENGTH} characters: this is not a zone file`, 'entry_too_long');
  const startEntry = (at: number): LogicalLine => {
    entryStart = at;
    return (current = { line, ownerOmitted, tokens: [] });
  };
  let i = 0;
  while (i < end) {
    if (current && i - entryStart > MAX_ENTRY_LENGTH) {
      tooLong();
      return;
    }
    const c = text.charCodeAt(i);
    if (c === NEWLINE) {
      const next = depth > 0 || current ? i + 1 : pastRun(NEWLINES, text, i);
      line += next - i;
      i = next;
      if (line > maxLines) {
        problem(maxLines + 1, `More than ${maxLines} lines: this is not a zone file`, 'too_many_lines');
        return;
      }
      if (depth > 0) continue;
      const ended = current;
      current = undefined;
      ownerOmitted = false;
      if (ended && ended.tokens.length > 0) yield ended;
      if (problems.length >= MAX_PROBLEMS) return;
      continue;
    }
    if (c < 128 && BLANK[c] === 1) {
      // White space at the very start of a line (outside parentheses) stands for the previous owner.
      if (depth === 0 && !current && (i === 0 || text.charCodeAt(i - 1) === NEWLINE)) ownerOmitted = true;
      i = pastRun(BLANKS, text, i);
      continue;
    }
    if (c === SEMICOLON) {
      const lineEnd = text.indexOf('\n', i);
      i = lineEnd < 0 ? end : lineEnd;
      continue;
    }
    if (c === OPEN) {
      if (depth === 0) openedAt = line;
      if (!current) startEntry(i);
      const run = pastRun(OPENS, text, i);
      depth += run - i;
      i = run;
      continue;
    }
    if (c === CLOSE) {
      if (depth > 0) depth -= 1;
      else if (problem(line, '")" without an opening "("', 'parenthesis_unbalanced')) return;
      i += 1;
      continue;
    }
    const start = line;
    const quoted = c === QUOTE;
    const entry = current ?? startEntry(i);
    // One character past the entry's span: a token reaching it makes the entry too long, and is not read further.
    const stop = Math.min(end, entryStart + MAX_ENTRY_LENGTH + 1);
    const extent = quoted ? quotedExtent(text, i, stop) : wordExtent(text, i, stop);
    if (extent.end - entryStart > MAX_ENTRY_LENGTH) {
      tooLong();
      return;
    }
    if (extent.unterminated && problem(start, extent.unterminated, 'quote_unterminated')) return;
    const raw = text.slice(i, extent.end);
    const inner = quoted ? raw.slice(1, extent.unterminated ? undefined : -1) : raw;
    let value = inner;
    if (extent.escaped) {
      const read = decoded(inner);
      if (read.error && !extent.unterminated && problem(start, read.error, 'escape_invalid')) return;
      value = read.value;
    }
    entry.tokens.push({ value, raw, quoted });
    line += extent.newlines;
    i = extent.end;
  }
  if (depth > 0 && problem(openedAt, 'The "(" opened on this line is never closed', 'parenthesis_unbalanced')) return;
  if (current && current.tokens.length > 0) yield current;
}
