import { defineConfig } from 'vitest/config';

/** Runs the fixtures of test/support/summaryReporter.test.ts with only the summary reporter. */
export default defineConfig({
  test: {
    include: ['*.fixture.ts'],
    reporters: ['../summaryReporter.ts'],
  },
});
