import { writeFile } from 'node:fs/promises';
import type { Command } from '@commander-js/extra-typings';
import { Option } from '@commander-js/extra-typings';
import { contextOf } from '../context.js';
import { applyRecords } from '../applyRecords.js';
import { readGivenFile, yesOption } from './records.js';

export function zoneCommands(program: Command): void {
  const zone = program.command('zone').description("a domain's zone as an RFC 1035 zone file");

  zone
    .command('export')
    .description('the zone file (SOA and name servers as served, then every record)')
    .argument('<domain>', 'e.g. example.com')
    .addOption(new Option('-o, --output <file>', 'write it to a file instead of stdout'))
    .action(async (domain, options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const text = await session.api.exportZoneFile({ path: { org_oid: await session.org(), domain } });
      if (options.output) {
        await writeFile(options.output, text);
        io.result({ domain, file: options.output }, [`Wrote ${domain}'s zone to ${options.output}.`]);
      } else if (io.json) io.result({ domain, zone_file: text }, []);
      else process.stdout.write(text);
    });

  zone
    .command('import')
    .description('import a zone file: the difference shown first, then applied all at once (merge by default)')
    .argument('<domain>', 'e.g. example.com')
    .argument('<file>', 'an RFC 1035 zone file (an export of another domain is copied onto this one)')
    .addOption(new Option('--replace', 'delete records the file does not hold'))
    .addOption(new Option('--dry-run', 'show the difference and change nothing'))
    .addOption(yesOption())
    .action(async (domain, file, options, command) => {
      const ctx = contextOf(command);
      const session = await ctx.session();
      const text = await readGivenFile(file);
      await applyRecords(ctx, {
        org: await session.org(),
        domain,
        file: { zoneFile: text, where: (line) => `line ${line}` },
        mode: options.replace ? 'replace' : 'merge',
        yes: options.yes === true,
        dryRun: options.dryRun === true,
      });
    });
}
