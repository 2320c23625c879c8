import type { Command } from '@commander-js/extra-typings';
import { Option } from '@commander-js/extra-typings';
import { eventTypes } from '../../../client/src/index.js';
import { contextOf } from '../context.js';
import { when, wholeNumber } from '../format.js';
import { table } from '../io.js';

export function eventCommands(program: Command): void {
  const events = program.command('events').description("the organisation's events (kept 30 days)");

  events
    .command('list')
    .description('events of this mode, newest first')
    .addOption(new Option('--type <type>', 'only this type').choices(eventTypes))
    .addOption(new Option('--limit <n>', 'how many (1–100)').default(20).argParser(wholeNumber('--limit', 1)))
    .action(async (options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const page = await session.api.listEvents({ path: { org_oid: await session.org() }, query: { limit: Math.min(options.limit, 100), ...(options.type ? { type: options.type } : {}) } });
      // What the event is about: the resource's name (a domain, a record), else its id.
      const about = (object: Record<string, unknown>) => [object.name, object.domain, object.id].find((value): value is string => typeof value === 'string') ?? '';
      io.result(page.data, table(io.paint, ['EVENT', 'TYPE', 'CREATED', 'ABOUT'], page.data.map((e) => [e.id, e.type, when(e.created_at), about(e.data.object)])));
    });
}
