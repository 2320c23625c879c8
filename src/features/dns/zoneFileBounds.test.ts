import { describe, expect, it } from 'vitest';
import { MAX_PROBLEMS, parseZoneFile, zoneEntries, ZoneFileSyntaxError, type ZoneEntry, type ZoneFileProblem } from './zoneFileParser.js';
import { readZoneFile, ZONE_FILE_MAX_LINES, ZONE_FILE_MAX_RECORDS, ZoneFileInvalidError } from './zoneFileImport.js';
import { ZONE_FILE_LIMIT_BYTES } from './zone.routes.js';
import { junkZoneFiles } from '../../../test/support/junkZoneFiles.js';

/**
 * What the reader does with bodies that are not zone files, at the largest size an import takes:
 * it stops at its caps (the 50th problem, an entry longer than any record, too many lines) rather
 * than reading everything and keeping the first problems.
 */
const ZONE = 'example.com';
const MAX = { zone: ZONE, maxEntries: ZONE_FILE_MAX_RECORDS, maxLines: ZONE_FILE_MAX_LINES };

/** Every entry and problem the reader produces for the text, all of them (nothing sliced afterwards). */
function readAll(text: string, options = MAX): { entries: ZoneEntry[]; problems: ZoneFileProblem[] } {
  const problems: ZoneFileProblem[] = [];
  const entries = [...zoneEntries(text, options, problems)];
  return { entries, problems };
}

/** What `read` throws; the test fails if it returns. */
function thrown(read: () => unknown): unknown {
  try {
    read();
  } catch (err) {
    return err;
  }
  throw new Error('expected the file to be refused');
}

function refusal(text: string): { loc: string[]; msg: string; type: string }[] {
  const err = thrown(() => readZoneFile(text, ZONE));
  expect(err).toBeInstanceOf(ZoneFileInvalidError);
  return (err as ZoneFileInvalidError).detail as { loc: string[]; msg: string; type: string }[];
}

describe('the zone file reader, given what is not a zone file', () => {
  it('stops at the 50th problem: 8 MiB of ")" makes 50 problems, not 8 million', () => {
    const { entries, problems } = readAll(')'.repeat(ZONE_FILE_LIMIT_BYTES));
    expect(problems).toHaveLength(MAX_PROBLEMS);
    expect(entries).toEqual([]);
  });

  it('reports the first 50 problems of the file in the order it meets them, whichever step finds them', () => {
    // Line 1 is a problem of the entry, lines 2 on of the tokens: the tokenizer must not read ahead.
    const text = `www\n${')\n'.repeat(200)}`;
    const err = thrown(() => parseZoneFile(text, { zone: ZONE }));
    expect(err).toBeInstanceOf(ZoneFileSyntaxError);
    expect((err as ZoneFileSyntaxError).problems.map((p) => p.line)).toEqual(Array.from({ length: MAX_PROBLEMS }, (_, i) => i + 1));
  });

  it.each(Object.entries(junkZoneFiles(ZONE_FILE_LIMIT_BYTES)))('refuses %s of the largest size with at most 50 problems, each quoting little', (_shape, text) => {
    expect(text.length).toBe(ZONE_FILE_LIMIT_BYTES);
    const detail = refusal(text);
    expect(detail.length).toBeGreaterThan(0);
    expect(detail.length).toBeLessThanOrEqual(MAX_PROBLEMS);
    for (const problem of detail) expect(problem.msg.length).toBeLessThan(300);
    expect(readAll(text).problems.length).toBeLessThanOrEqual(MAX_PROBLEMS);
  });

  it('takes a form feed, a vertical tab and a non-breaking space without stalling', () => {
    expect(parseZoneFile('$TTL 300\nwww\fA\v192.0.2.1\n', { zone: ZONE }).map((e) => [e.name, e.type, e.rdata[0]!.value])).toEqual([['www.example.com', 'A', '192.0.2.1']]);
    // Not a separator (BIND reads bytes): part of the word, which is then no record type.
    expect(refusal('$TTL 300\nwww A\u00a0192.0.2.1\n').map((d) => d.type)).toEqual(['type_missing']);
  });

  it('ends the reading at an entry longer than any record, without keeping its tokens', () => {
    for (const text of [`www TXT "${'a'.repeat(100_000)}"\nok A 192.0.2.1\n`, `www TXT ${'"" '.repeat(40_000)}\n`, `www TXT (\n${' ; comment\n'.repeat(10_000)})\n`]) {
      const { entries, problems } = readAll(`$TTL 300\n${text}`);
      expect(entries).toEqual([]);
      expect(problems).toEqual([{ line: 2, message: expect.stringMatching(/^An entry may span at most 65536 characters/) as string, type: 'entry_too_long' }]);
    }
  });

  it('counts blank and comment lines, and $TTL lines, towards their limits', () => {
    expect(readAll('\n'.repeat(20), { ...MAX, maxLines: 10 }).problems).toEqual([{ line: 11, message: 'More than 10 lines: this is not a zone file', type: 'too_many_lines' }]);
    expect(readAll('; c\n'.repeat(20), { ...MAX, maxLines: 10 }).problems.map((p) => p.type)).toEqual(['too_many_lines']);
    expect(readAll('$TTL 300\n'.repeat(20), { ...MAX, maxEntries: 10 }).problems).toEqual([
      { line: 11, message: 'More than 10 $ORIGIN and $TTL lines: this is not a zone file', type: 'too_many_directives' },
    ]);
  });

  it('still reads escapes, quotes across escaped newlines and parentheses as before', () => {
    const [entry] = parseZoneFile('www 300 TXT ( "a\\"b\\065" ; comment\n "c\\\nd" )\nnext 300 A 192.0.2.1', { zone: ZONE });
    expect(entry!.rdata.map((t) => t.value)).toEqual(['a"bA', 'c\nd']);
    expect(parseZoneFile('www 300 TXT ( "a\\"b\\065" ; comment\n "c\\\nd" )\nnext 300 A 192.0.2.1', { zone: ZONE })[1]!.line).toBe(4);
  });
});
