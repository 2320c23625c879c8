import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { RECORD_TYPE_SPECS, RECORD_TYPES, type RecordType } from './recordTypes.js';
import { checkRecord, presentationContent, type RecordFields } from './records.js';
import { zoneFileLines } from './zoneFileExport.js';
import { readZoneFile } from './zoneFileImport.js';
import { CreateRecordBody } from './schemas.js';
import { ENDPOINT_TYPES } from '../../externalDnsWebhook/endpointRecords.js';
import { RECORD_HINTS, TAKES_PRIORITY } from '../../../dashboard/src/pages/recordHints.js';

/**
 * Each record type is declared once (recordTypes.ts); these check what derives from the declaration
 * and the copies other packages keep (docs/architecture.md, "Adding a record type").
 */
const ZONE = 'example.com';
const exampleOf = (type: RecordType): RecordFields => {
  const { name, content, priority } = RECORD_TYPE_SPECS[type].example;
  return { type, name, content, ttl: 3600, priority: priority ?? null };
};
const EXAMPLES = RECORD_TYPES.map(exampleOf);
const root = new URL('../../../', import.meta.url);
const text = (path: string) => readFile(new URL(path, root), 'utf8');

describe('record types, declared once', () => {
  it.each(RECORD_TYPES)('%s: its example is valid and already in stored form', (type) => {
    expect(checkRecord(exampleOf(type), ZONE)).toEqual({ ok: true, value: exampleOf(type) });
  });

  it('write to a zone file and read back as the same records, every type', () => {
    const { records, skipped } = readZoneFile(`$ORIGIN ${ZONE}.\n${zoneFileLines(EXAMPLES)}`, ZONE);
    expect(skipped).toEqual([]);
    expect(records.map(({ line: _line, ...record }) => record)).toEqual(EXAMPLES);
  });

  it('are each named in the API’s description of a record’s content', () => {
    const content = (CreateRecordBody.in as z.ZodObject<{ content: z.ZodString }>).shape.content.description ?? '';
    for (const type of RECORD_TYPES) expect(content, type).toMatch(new RegExp(`\\b${type}\\b`));
  });

  it('are the ones the api guide lists, in order', async () => {
    const listed = /\(\[`listDnsRecords`\]\([^)]*\)\) are ([^.]*)\./.exec(await text('docs/api-guide.md'))?.[1];
    expect(listed?.replace(/\s+/g, ' ').split(/, | and /)).toEqual(RECORD_TYPES);
  });

  it('that external-dns asks for are the ones docs/external-dns.md names', async () => {
    const line = /\*\*Record types\*\*: (.*)\. The/.exec(await text('docs/external-dns.md'))?.[1];
    expect(line?.replace(' (an ALIAS at the apex)', '').split(', ')).toEqual(ENDPOINT_TYPES);
  });

  it('each have a hint in the dashboard, which gives a priority its column where the API does', () => {
    expect(Object.keys(RECORD_HINTS).sort()).toEqual([...RECORD_TYPES].sort());
    expect([...TAKES_PRIORITY].sort()).toEqual(RECORD_TYPES.filter((type) => RECORD_TYPE_SPECS[type].priority).sort());
  });

  /**
   * The Terraform provider's test (records_test.go, TestRecordTypesOfTheAPI) reads this file: its
   * type list, and its zone-file form and stored form of each example, must agree with it. After a
   * change here, `npx vitest run src/features/dns/recordTypes.test.ts -u` rewrites it, then
   * `cd terraform-provider && go test ./...`.
   */
  it('are the Terraform provider’s, as its fixture states them', async () => {
    const fixture = EXAMPLES.map((record) => ({
      type: record.type,
      name: record.name,
      content: record.content,
      priority: record.priority,
      presentation: presentationContent(record),
      case_matters: RECORD_TYPE_SPECS[record.type].caseMatters ?? false,
    }));
    await expect(`${JSON.stringify(fixture, null, 2)}\n`).toMatchFileSnapshot('../../../terraform-provider/internal/provider/testdata/record_types.json');
  });
});
