/**
 * `npm run billing:credit -- --org <org_id> --amount <minor units> --reason "…" [--operator <name>] [--test]`:
 * credits an organisation's live balance (the test balance with `--test`) with an audited ledger
 * entry. The API refuses live top-ups that were not paid, so this is how an operator puts money there
 * (a bank transfer received, a goodwill credit). Exit code 0 on success, 1 on any error.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createPool } from '../db/pool.js';
import { ApiError } from '../errors.js';
import { creditByOperator } from '../features/billing/index.js';

const MAX_REASON_LENGTH = 500;

class UsageError extends Error {
  constructor(problems: string[]) {
    super(`Nothing was credited:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

function parseCommandLine(): { orgId: string; amount: number; reason: string; operator: string; livemode: boolean } {
  const { values } = parseArgs({
    options: {
      org: { type: 'string' },
      amount: { type: 'string' },
      reason: { type: 'string' },
      operator: { type: 'string' },
      test: { type: 'boolean', default: false },
    },
  });
  const problems: string[] = [];
  const orgId = values.org?.trim() ?? '';
  if (!orgId) problems.push('--org: the organisation id (org_…) is required');
  const amountText = values.amount?.trim() ?? '';
  const amount = Number(amountText);
  if (!/^[0-9]+$/.test(amountText) || !Number.isSafeInteger(amount) || amount <= 0) {
    problems.push(`--amount: a positive whole number of minor units (cents) is required, got ${JSON.stringify(values.amount ?? null)}`);
  }
  const reason = values.reason?.trim() ?? '';
  if (!reason) problems.push('--reason: say why the balance is credited (e.g. "bank transfer 2026-11-23 ref 4411")');
  else if (reason.length > MAX_REASON_LENGTH) problems.push(`--reason: at most ${MAX_REASON_LENGTH} characters`);
  const operator = (values.operator ?? os.userInfo().username).trim();
  if (!operator) problems.push('--operator: cannot be empty');
  if (problems.length) throw new UsageError(problems);
  return { orgId, amount, reason, operator, livemode: !values.test };
}

try {
  const args = parseCommandLine();
  const config = loadConfig();
  const db = createPool(config.databaseUrl, createLogger(config, { component: 'billing-credit' }));
  try {
    const { entry, auditEventId } = await creditByOperator({ db, ...args });
    console.log(
      `Credited ${entry.amount} ${entry.currency} minor units to the ${args.livemode ? 'live' : 'test'} balance of ${args.orgId}: ` +
        `${entry.availableAfter} available now. Ledger entry ${entry.id}, audit event ${auditEventId} (operator ${args.operator}).`,
    );
  } finally {
    await db.end();
  }
} catch (err) {
  const parseArgsError = err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS');
  if (err instanceof UsageError || err instanceof ConfigError || parseArgsError) console.error(err.message);
  else if (err instanceof ApiError) console.error(`Nothing was credited: ${err.message}`);
  else console.error(err);
  process.exitCode = 1;
}
