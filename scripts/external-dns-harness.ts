// `npm run external-dns-harness` fills Go's caches for test/external-dns, so its test builds in seconds (.ci/run).
import { prebuildExternalDnsHarness } from './lib/externalDnsHarness.js';

await prebuildExternalDnsHarness();
