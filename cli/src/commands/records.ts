import { readFile } from 'node:fs/promises';
import type { components } from '../../../client/src/index.js';
import type { Command } from '@commander-js/extra-typings';
import { Option } from '@commander-js/extra-typings';
import { contextOf } from '../context.js';
import { CliError } from '../errors.js';
import { wholeNumber } from '../format.js';
import { table } from '../io.js';
import { readRecordsFile } from '../recordsFile.js';
import { applyRecords } from '../applyRecords.js';

/** The API's record types, as the SDK generated from the OpenAPI document has them (src/features/dns/recordTypes.ts). */
type RecordType = components['schemas']['DnsRecord']['type'];

/** Reads a file named on the command line, or says which and why not. */
export async function readGivenFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, 'usage', 'FILE_UNREADABLE');
  }
}

export const yesOption = () => new Option('-y, --yes', 'apply without asking (CI); without a terminal it is required');

export function recordCommands(program: Command): void {
  const records = program.command('records').description("a domain's DNS records, one at a time or from a file");

  records
    .command('list')
    .description("a domain's records")
    .argument('<domain>', 'e.g. example.com')
    .addOption(new Option('--type <type>', 'only this type (A, MX, TXT, …)'))
    .addOption(new Option('--name <name>', 'only this name (@ for the domain itself)'))
    .action(async (domain, options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const path = { org_oid: await session.org(), domain };
      const found = [];
      let cursor: string | undefined;
      do {
        const query = { limit: 100, ...(options.type ? { type: options.type.toUpperCase() as RecordType } : {}), ...(options.name ? { name: options.name } : {}), ...(cursor ? { cursor } : {}) };
        const page = await session.api.listDnsRecords({ path, query });
        found.push(...page.data);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      io.result(found, table(io.paint, ['ID', 'NAME', 'TTL', 'TYPE', 'CONTENT'], found.map((r) => [r.id, r.name, String(r.ttl), r.type, `${r.priority !== null ? `${r.priority} ` : ''}${r.content}`])));
    });

  records
    .command('add')
    .description('add one record')
    .argument('<domain>', 'e.g. example.com')
    .argument('<type>', 'A, AAAA, CNAME, MX, TXT, SRV, CAA, …')
    .argument('<name>', '@ for the domain itself, or www, _dmarc, …')
    .argument('<content...>', 'the data, as `records list` shows it (words are joined by spaces)')
    .addOption(new Option('--ttl <seconds>', 'time to live').default(3600).argParser(wholeNumber('--ttl', 1)))
    .addOption(new Option('--priority <n>', 'MX and SRV only').argParser(wholeNumber('--priority')))
    .action(async (domain, type, name, content, options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const body = { type: type.toUpperCase() as RecordType, name, content: content.join(' '), ttl: options.ttl, ...(options.priority !== undefined ? { priority: options.priority } : {}) };
      const record = await session.api.createDnsRecord({ path: { org_oid: await session.org(), domain }, body });
      io.result(record, [`Added ${record.id}: ${record.name} ${record.ttl} ${record.type} ${record.priority !== null ? `${record.priority} ` : ''}${record.content}`]);
    });

  records
    .command('rm')
    .description('delete records by id (several: all or none)')
    .argument('<domain>', 'e.g. example.com')
    .argument('<ids...>', 'record ids (rec_…), from `records list`')
    .action(async (domain, ids, _options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const path = { org_oid: await session.org(), domain };
      if (ids.length === 1) await session.api.deleteDnsRecord({ path: { ...path, record_id: ids[0]! } });
      else await session.api.batchDnsRecords({ path, body: { operations: ids.map((id) => ({ op: 'delete' as const, id })) } });
      io.result({ deleted: ids }, [`Deleted ${ids.join(', ')}.`]);
    });

  records
    .command('apply')
    .description("make a domain's records those of a file (YAML or a zone file): the difference shown first, then applied all at once")
    .argument('<domain>', 'e.g. example.com')
    .argument('<file>', 'records.yaml (a list of {name, type, content, ttl?, priority?}) or a zone file')
    .addOption(new Option('--merge', 'keep records the file does not hold (default: delete them)'))
    .addOption(new Option('--format <format>', 'how to read the file (default: by its extension; .yaml, .yml, .json are YAML)').choices(['yaml', 'zone'] as const))
    .addOption(new Option('--dry-run', 'show the difference and change nothing'))
    .addOption(yesOption())
    .action(async (domain, file, options, command) => {
      const ctx = contextOf(command);
      const session = await ctx.session();
      const records = await readRecordsFile(file, await readGivenFile(file), domain, options.format);
      await applyRecords(ctx, { org: await session.org(), domain, file: records, mode: options.merge ? 'merge' : 'replace', yes: options.yes === true, dryRun: options.dryRun === true });
    });
}
