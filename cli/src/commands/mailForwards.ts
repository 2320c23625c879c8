import type { Command } from '@commander-js/extra-typings';
import { contextOf } from '../context.js';
import { list } from '../format.js';
import { table } from '../io.js';

export function mailForwardCommands(program: Command): void {
  const forwards = program.command('email-forwards').description("a domain's e-mail forwards (docs/api-guide.md, E-mail forwarding)");

  forwards
    .command('list')
    .description('the addresses of the domain that are forwarded, and where to')
    .argument('<domain>', 'e.g. example.com')
    .action(async (domain, _options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const { data } = await session.api.listEmailForwards({ path: { org_oid: await session.org(), domain } });
      io.result(data, table(io.paint, ['ID', 'ADDRESS', 'TO'], data.map((f) => [f.id, f.address, f.to.join(', ')])));
    });

  forwards
    .command('create')
    .description("forward an address of the domain (`*`: every one without its own); the first also sets the domain's MX, SPF and DMARC")
    .argument('<domain>', 'e.g. example.com')
    .argument('<local-part>', 'e.g. hello for hello@example.com, or * for the catch-all')
    .requiredOption('--to <address>', 'where its mail goes (up to 10; repeat or separate with commas)', list)
    .action(async (domain, localPart, options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const forward = await session.api.createEmailForward({ path: { org_oid: await session.org(), domain }, body: { local_part: localPart, to: options.to } });
      const records = forward.records.map((r) => `  set ${r.type} ${r.name} ${r.content}`);
      io.result(forward, [`Forwarding ${forward.address} to ${forward.to.join(', ')} (${forward.id}).`, ...records]);
    });

  forwards
    .command('delete')
    .description("stop forwarding an address; the domain's last forward removed takes its mail records away")
    .argument('<domain>', 'e.g. example.com')
    .argument('<id>', 'the forward’s id (emf_…)')
    .action(async (domain, id, _options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      await session.api.deleteEmailForward({ path: { org_oid: await session.org(), domain, forward_id: id } });
      io.result({ id, deleted: true }, [`Deleted ${id}.`]);
    });
}
