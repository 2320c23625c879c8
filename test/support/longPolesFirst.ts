import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take a minute or more whatever else runs (fixed-length load, a fault run, builds,
 * fuzzing every route), longest first. Started first, they overlap the hundreds of short files;
 * started last, as vitest's size order put the fuzz file on a fresh clone, the suite waits on them.
 * Vitest orders by recorded durations once it has them; CI starts from a clean clone without them.
 */
const LONG_POLES = [
  'test/load/ledgerInvariants.test.ts',
  'test/load/workerKilledUnderLoad.test.ts',
  'test/terraform/provider.test.ts',
  'test/fault/faultRun.test.ts',
  'test/fuzz/routes1.test.ts',
  'test/fuzz/routes2.test.ts',
  'test/fuzz/routes3.test.ts',
  'test/workflows/liveChaos.test.ts',
  'test/scale/twoByTwo.test.ts',
  'test/workflows/workerCrash.test.ts',
  'test/external-dns/webhook.test.ts',
  'test/workflows/unstartedOperation.test.ts',
];

function rank(spec: TestSpecification): number {
  const index = LONG_POLES.findIndex((path) => spec.moduleId.includes(`/${path}`));
  return index === -1 ? LONG_POLES.length : index;
}

export default class LongPolesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted.map((spec, order) => ({ spec, order })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.order - b.order).map(({ spec }) => spec);
  }
}
