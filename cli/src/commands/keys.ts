import type { Command } from '@commander-js/extra-typings';
import { Option } from '@commander-js/extra-typings';
import { contextOf } from '../context.js';
import { list, when, wholeNumber } from '../format.js';
import { table } from '../io.js';

type Scope = 'domains:read' | 'domains:write' | 'dns:read' | 'dns:write' | 'contacts:read' | 'contacts:write' | 'billing:read' | 'billing:write' | 'orgs:read' | 'orgs:write' | 'keys:read' | 'keys:write' | 'webhooks:read' | 'webhooks:write';

export function keyCommands(program: Command): void {
  const keys = program.command('keys').description('your API keys (a key acts as you, within its scopes and its mode)');

  keys
    .command('create')
    .description('create a key; its secret is printed once, alone on stdout (--test for a test-mode key)')
    .argument('<name>', 'what it is for, e.g. "deploy from CI"')
    .addOption(new Option('--preset <preset>', 'the scopes of a use (certificates: DNS-01 challenges only, with --allowed-records)').choices(['ci', 'monitoring', 'registrar_tooling', 'certificates'] as const))
    .addOption(new Option('--scopes <scopes>', 'comma-separated scopes, e.g. dns:read,dns:write').argParser(list))
    .addOption(new Option('--allowed-domains <names>', 'only these domains (exact, or *.suffix)').argParser(list))
    .addOption(new Option('--allowed-records <patterns>', 'only these records, name:TYPE, e.g. _acme-challenge.example.com:TXT').argParser(list))
    .addOption(new Option('--allowed-ips <cidrs>', 'only from these addresses').argParser(list))
    .addOption(new Option('--monthly-spend-limit <cents>', 'the most it (and keys made with it) may spend a month').argParser(wholeNumber('--monthly-spend-limit')))
    .action(async (name, options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const body = {
        name,
        mode: session.mode,
        ...(options.scopes ? { scopes: options.scopes as Scope[] } : { preset: options.preset ?? 'ci' }),
        ...(options.allowedDomains ? { allowed_domains: options.allowedDomains } : {}),
        ...(options.allowedRecords ? { allowed_records: options.allowedRecords } : {}),
        ...(options.allowedIps ? { allowed_ips: options.allowedIps } : {}),
        ...(options.monthlySpendLimit !== undefined ? { monthly_spend_limit: options.monthlySpendLimit } : {}),
      };
      const created = await session.api.createApiKey({ body });
      io.notice(`Created ${created.id} "${created.name}" (${created.mode} mode; ${created.scopes.join(', ')}).`);
      io.notice(io.errPaint.yellow('Its secret is shown this once: keep it in a secrets manager now.'));
      io.result(created, [created.key]);
    });

  keys
    .command('list')
    .description('your keys, with their prefix (never the secret)')
    .action(async (_options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const page = await session.api.listApiKeys({ query: { limit: 100 } });
      io.result(
        page.data,
        table(io.paint, ['ID', 'NAME', 'MODE', 'PREFIX', 'STATUS', 'LAST USED', 'SCOPES'], page.data.map((k) => [k.id, k.name, k.mode, k.prefix, k.status, when(k.last_used_at), k.scopes.join(',')])),
      );
    });

  keys
    .command('rm')
    .description('delete a key: requests with it are refused within seconds')
    .argument('<key>', 'its id (key_…)')
    .action(async (id, _options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      await session.api.deleteApiKey({ path: { key_id: id } });
      io.result({ deleted: id }, [`Deleted ${id}.`]);
    });
}
