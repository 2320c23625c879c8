import type { Command } from '@commander-js/extra-typings';
import { Option } from '@commander-js/extra-typings';
import { eventTypes } from '../../../client/src/index.js';
import { contextOf } from '../context.js';
import { CliError } from '../errors.js';
import { list } from '../format.js';
import { listen } from '../listen.js';

export function webhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('webhooks on your own machine');

  webhooks
    .command('listen')
    .description("forward the organisation's events, as they happen, to a local URL, signed as webhooks are (no tunnel, no endpoint to create)")
    .addOption(new Option('--forward-to <url>', 'where to POST each event, e.g. http://localhost:4000/webhooks'))
    .addOption(new Option('--events <types>', `comma-separated event types (default: all), of: ${eventTypes.join(', ')}`).argParser(list))
    .addOption(new Option('--print-secret', 'print the signing secret your receiver verifies with, and stop'))
    .action(async (options, command) => {
      const ctx = contextOf(command);
      if (!options.forwardTo && !options.printSecret) throw new CliError('Say where to: --forward-to http://localhost:PORT/PATH (or --print-secret)', 'usage');
      if (options.forwardTo && !/^https?:\/\//.test(options.forwardTo)) throw new CliError(`--forward-to takes an http or https URL, not ${options.forwardTo}`, 'usage');
      const unknown = (options.events ?? []).filter((type) => !(eventTypes as readonly string[]).includes(type));
      if (unknown.length) throw new CliError(`Unknown event types: ${unknown.join(', ')}`, 'usage');
      const session = await ctx.session();
      await listen(ctx, { org: await session.org(), forwardTo: options.forwardTo, types: options.events, printSecret: options.printSecret === true });
    });
}
