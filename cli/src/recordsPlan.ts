import type { components } from '../../client/src/index.js';
import type { Paint } from './io.js';

export type ImportPlan = components['schemas']['ZoneImportResult'];

const shown = (r: { name: string; ttl: number; type: string; content: string; priority: number | null }) =>
  `${r.name} ${r.ttl} ${r.type} ${r.priority !== null ? `${r.priority} ` : ''}${r.content}`;

export function planSize(plan: ImportPlan): number {
  return plan.create.length + plan.update.length + plan.delete.length;
}

export function planSummary(plan: ImportPlan): string {
  const skipped = plan.skipped.length ? `, ${plan.skipped.length} skipped` : '';
  return `${plan.create.length} to create, ${plan.update.length} to change, ${plan.delete.length} to delete${skipped}`;
}

/** What an import would do (or did), as a diff: `+` created, `~` changed (with what it was), `-` deleted. */
export function planLines(paint: Paint, plan: ImportPlan, where: (line: number) => string): string[] {
  const changed = (u: ImportPlan['update'][number]) => {
    const was = [
      u.previous.ttl !== u.ttl ? `ttl ${u.previous.ttl}` : '',
      u.previous.content !== u.content ? u.previous.content : '',
      u.previous.priority !== u.priority ? `priority ${u.previous.priority ?? 'none'}` : '',
    ].filter(Boolean);
    return `${paint.yellow(`~ ${shown(u)}`)}${paint.dim(`  (was ${was.join(', ')})`)}`;
  };
  return [
    ...plan.create.map((c) => paint.green(`+ ${shown(c)}`)),
    ...plan.update.map(changed),
    ...plan.delete.map((d) => paint.red(`- ${shown(d)}`)),
    ...plan.skipped.map((s) => paint.dim(`  skipped ${where(s.line)}: ${s.type} ${s.name}: ${s.reason}`)),
  ];
}
