import { ApiError } from '../../client/src/index.js';
import type { Context } from './context.js';
import { CliError } from './errors.js';
import type { RecordsFile } from './recordsFile.js';
import { planLines, planSize, planSummary, type ImportPlan } from './recordsPlan.js';

export interface ApplyProps {
  org: string;
  domain: string;
  file: RecordsFile;
  /** `replace`: the domain ends with exactly the file's records; `merge`: records the file does not hold stay. */
  mode: 'merge' | 'replace';
  yes: boolean;
  dryRun: boolean;
}

/** A zone file's 422 with each line named as the person wrote it (a YAML entry, or the line). */
function named(err: unknown, where: (line: number) => string): unknown {
  if (!(err instanceof ApiError) || typeof err.detail === 'string') return err;
  const detail = err.detail.map((e) => (e.loc[1] === 'line' ? { ...e, loc: ['file', where(Number(e.loc[2]))] } : e));
  return new ApiError({ status: err.status, code: err.code, detail, requestId: err.requestId });
}

/**
 * Applies records through the zone file import, which applies them as one batch (all or nothing) and
 * works out the difference itself, so the same file applied twice changes nothing. The difference is
 * shown first: on a terminal the person confirms it; elsewhere `--yes` is needed, and then what was
 * applied is the result.
 */
export async function applyRecords(ctx: Context, props: ApplyProps): Promise<void> {
  const { io } = ctx;
  const session = await ctx.session();
  const path = { org_oid: props.org, domain: props.domain };
  const send = async (dryRun: boolean): Promise<ImportPlan> => {
    try {
      return await session.api.importZoneFile({ path, query: { mode: props.mode }, header: { 'dry-run': dryRun ? 'true' : 'false' }, body: props.file.zoneFile });
    } catch (err) {
      throw named(err, props.file.where);
    }
  };
  const lines = (plan: ImportPlan, paint = io.paint) => planLines(paint, plan, props.file.where);

  if (!props.yes || props.dryRun) {
    const plan = await send(true);
    if (planSize(plan) === 0 || props.dryRun) {
      const outcome = planSize(plan) === 0 ? 'Nothing to change.' : `${planSummary(plan)}. Nothing was changed (--dry-run).`;
      io.result({ ...plan, applied: false }, [...lines(plan), `${props.domain}: ${outcome}`]);
      return;
    }
    for (const line of lines(plan, io.errPaint)) io.notice(line);
    if (!io.interactive) {
      throw new CliError(`${props.domain}: ${planSummary(plan)}; nothing was changed: confirm with --yes where no one can answer a prompt`, 'notConfirmed', 'NOT_CONFIRMED');
    }
    if (!(await io.confirm(`Apply these changes to ${props.domain} (${planSummary(plan)})?`))) {
      throw new CliError('Nothing was changed', 'notConfirmed', 'NOT_CONFIRMED');
    }
    const applied = await send(false);
    io.result({ ...applied, applied: true }, [`${props.domain}: applied, ${planSummary(applied).replace(/to (create|change|delete)/g, (_, verb: string) => `${verb === 'change' ? 'changed' : `${verb}d`}`)}.`]);
    return;
  }
  const applied = await send(false);
  io.result({ ...applied, applied: true }, [...lines(applied), `${props.domain}: applied, ${planSummary(applied)}.`]);
}
