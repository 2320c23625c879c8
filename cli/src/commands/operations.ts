import type { Command } from '@commander-js/extra-typings';
import { Option } from '@commander-js/extra-typings';
import type { Operation } from '../../../client/src/index.js';
import { contextOf, type Context } from '../context.js';
import { parseDuration, when } from '../format.js';
import type { ExitName } from '../exitCodes.js';
import { table } from '../io.js';

const OUTCOME: Record<Operation['status'], ExitName> = { succeeded: 'ok', failed: 'operationFailed', cancelled: 'operationCancelled', pending: 'stillRunning', running: 'stillRunning' };

/** `--wait`, for every command that starts an operation. */
export const waitOption = () => new Option('--wait', 'wait until the operation ends; the exit code says how it ended');
export const timeoutOption = () => new Option('--timeout <duration>', 'how long to wait (e.g. 90s, 10m)').default(600_000, '10m').argParser(parseDuration);

export function describeOperation(operation: Operation): string[] {
  const error = operation.error ? ` ${operation.error.code}: ${operation.error.detail}` : '';
  return [`${operation.id}  ${operation.type}  ${operation.domain}  ${operation.status}${error}`];
}

const VERBS: Record<string, string> = { 'domain.register': 'Registering', 'domain.transfer': 'Transferring', 'domain.renew': 'Renewing', 'dnssec.enable': 'Signing', 'dnssec.disable': 'Unsigning' };

/**
 * An operation just started or looked up: printed as it is, or with `wait` followed until it ends
 * (a progress line on a terminal) and printed then, the exit code saying how it ended.
 */
export async function followOperation(ctx: Context, org: string, operation: Operation, options: { wait?: boolean | undefined; timeout: number }): Promise<void> {
  const { io } = ctx;
  if (!options.wait || OUTCOME[operation.status] !== 'stillRunning') {
    io.result(operation, describeOperation(operation));
    ctx.exit(OUTCOME[operation.status] === 'stillRunning' ? 'ok' : OUTCOME[operation.status]);
    if (!options.wait && OUTCOME[operation.status] === 'stillRunning') io.hint(`Follow it with: domain-service operations wait ${operation.id}`);
    return;
  }
  const session = await ctx.session();
  const label = `${VERBS[operation.type] ?? operation.type} ${operation.domain}`;
  const progress = io.progress(`${label}: ${operation.status}`);
  let final: Operation;
  try {
    final = await session.api.waitForOperation(org, operation.id, {
      timeoutMs: options.timeout,
      signal: ctx.signal,
      onPoll: (seen) => progress.update(`${label}: ${seen.status}`),
    });
  } finally {
    progress.stop();
  }
  io.result(final, describeOperation(final));
  ctx.exit(OUTCOME[final.status]);
}

export function operationCommands(program: Command): void {
  const operations = program.command('operations').description('registrations, transfers and renewals under way, and how they ended');

  operations
    .command('list')
    .description("the organisation's operations, newest first")
    .addOption(new Option('--limit <n>', 'how many').default(20).argParser(Number))
    .action(async (options, command) => {
      const ctx = contextOf(command);
      const session = await ctx.session();
      const page = await session.api.listOperations({ path: { org_oid: await session.org() }, query: { limit: Math.min(options.limit, 100) } });
      ctx.io.result(page.data, table(ctx.io.paint, ['OPERATION', 'TYPE', 'DOMAIN', 'STATUS', 'CREATED'], page.data.map((op) => [op.id, op.type, op.domain, op.status, when(op.created_at)])));
    });

  operations
    .command('show')
    .description('one operation as it is now')
    .argument('<operation>', 'its id (op_…)')
    .action(async (id, _options, command) => {
      const ctx = contextOf(command);
      const session = await ctx.session();
      const org = await session.org();
      await followOperation(ctx, org, await session.api.getOperation({ path: { org_oid: org, operation_id: id } }), { wait: false, timeout: 0 });
    });

  operations
    .command('wait')
    .description('wait until an operation ends; the exit code says how it ended')
    .argument('<operation>', 'its id (op_…)')
    .addOption(timeoutOption())
    .action(async (id, options, command) => {
      const ctx = contextOf(command);
      const session = await ctx.session();
      const org = await session.org();
      await followOperation(ctx, org, await session.api.getOperation({ path: { org_oid: org, operation_id: id } }), { wait: true, timeout: options.timeout });
    });
}
