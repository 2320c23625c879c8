import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';

type Counts = { passed: number; failed: number; skipped: number };

/**
 * Ends the run with the plain `tests: N passed, N failed, N skipped` line that CI reads.
 *
 * Only a test skipped on purpose (`it.skip`, `it.todo`, a filter) counts as skipped. A test that did
 * not run because its file or suite failed around it (a `beforeAll` that threw: PowerDNS or Chromium
 * missing) counts as failed, and so does a failure no test carries (an `afterAll` that threw after
 * every test passed, a file that failed to load).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) countSuite(module, false, counts);
    console.log(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  }
}

/** Counts a module's or suite's tests; `failedAround`: a suite enclosing it failed on its own. */
function countSuite(suite: TestModule | TestSuite, failedAround: boolean, counts: Counts): void {
  const failedHere = failedAround || suite.errors().length > 0 || (suite.type === 'module' && suite.state() === 'failed' && !hasTests(suite));
  const failedBefore = counts.failed;
  for (const child of suite.children) {
    if (child.type === 'suite') countSuite(child, failedHere, counts);
    else countTest(child, failedHere, counts);
  }
  // The suite's own failure, when none of its tests carries it.
  if (failedHere && !failedAround && counts.failed === failedBefore) counts.failed += 1;
}

function countTest(test: TestCase, failedAround: boolean, counts: Counts): void {
  const state = test.result().state;
  const skippedOnPurpose = test.options.mode === 'skip' || test.options.mode === 'todo';
  if (state === 'passed') counts.passed += 1;
  else if (state === 'failed' || (failedAround && !skippedOnPurpose)) counts.failed += 1;
  else counts.skipped += 1;
}

const hasTests = (module: TestModule) => !module.children.allTests().next().done;
