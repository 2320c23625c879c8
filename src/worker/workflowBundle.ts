/**
 * The workflows bundled ahead of a worker's start: Temporal's recommendation for production (a worker
 * otherwise runs webpack over them at every start, about 10 s of CPU, which a restarted worker spends
 * before it polls). `npm run build` writes the file; WORKFLOW_BUNDLE points a worker at it (createWorker,
 * src/worker/worker.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOWS_PATH } from './worker.js';

/** Where `npm run build` writes the bundle, relative to the project (the image's WORKFLOW_BUNDLE, `npm start`'s). */
export const BUILT_WORKFLOW_BUNDLE = 'dist/workflow-bundle.js';

/** Bundles the workflows of the code this runs (sources under tsx, `dist` when compiled) into `file`. */
export async function writeWorkflowBundle(file: string, warn: (message: string) => void = () => {}): Promise<void> {
  const quiet = () => {};
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: { info: quiet, debug: quiet, trace: quiet, log: quiet, warn, error: warn } });
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, code);
}
