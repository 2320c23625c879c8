import type { Command } from '@commander-js/extra-typings';
import { contextOf } from '../context.js';
import { money, wholeNumber } from '../format.js';

export function billingCommands(program: Command): void {
  const billing = program.command('billing').description("the organisation's balance (per mode) and top-ups");

  billing
    .command('balance')
    .description('what is available and reserved in this mode')
    .action(async (_options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const balance = await session.api.getBalance({ path: { org_oid: await session.org() } });
      io.result(balance, [
        `${money(balance.available, balance.currency)} available, ${money(balance.reserved, balance.currency)} reserved (${balance.livemode ? 'live' : 'test'} mode)`,
        `${money(balance.spent_this_month, balance.currency)} spent this month${balance.monthly_spend_limit !== null ? ` of a ${money(balance.monthly_spend_limit)} limit` : ''}`,
      ]);
    });

  billing
    .command('top-up')
    .description('add money: free in test mode; in live mode, a checkout page to pay at')
    .argument('<cents>', 'integer minor units: 5000 is $50.00', wholeNumber('amount', 1))
    .action(async (amount, _options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const answer = await session.api.createTopUp({ path: { org_oid: await session.org() }, body: { amount } });
      if ('checkout_url' in answer && answer.checkout_url) io.result(answer, [`Pay ${money(amount)} at ${answer.checkout_url}`]);
      else io.result(answer, [`Added ${money(amount)} (${session.mode} mode).`]);
    });
}
