/**
 * `npm run build:workflows` (part of `npm run build`): bundles the compiled workflows into
 * `dist/workflow-bundle.js`, or the path given, for WORKFLOW_BUNDLE (src/worker/workflowBundle.ts).
 */
import path from 'node:path';
import { BUILT_WORKFLOW_BUNDLE, writeWorkflowBundle } from '../worker/workflowBundle.js';

const file = path.resolve(process.argv[2] ?? BUILT_WORKFLOW_BUNDLE);
try {
  await writeWorkflowBundle(file, (message) => console.error(message));
  console.log(`Workflows bundled into ${path.relative(process.cwd(), file)}`);
} catch (err) {
  console.error(err);
  process.exitCode = 1;
}
