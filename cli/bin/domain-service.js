#!/usr/bin/env node
// The domain-service command line. It runs from its TypeScript source through tsx, as the repository's
// other commands do, so a fresh `npm install` is all it needs and it is never older than its source
// (docs/cli.md, "How it runs").
const major = Number(process.versions.node.split('.')[0]);
if (major < 20) {
  process.stderr.write(`domain-service needs Node.js 20 or later; this is ${process.version}\n`);
  process.exit(1);
}
let tsx;
try {
  tsx = await import('tsx/esm/api');
} catch {
  process.stderr.write('domain-service runs through tsx: run `npm install` in its repository (development dependencies included)\n');
  process.exit(1);
}
await tsx.tsImport('../src/main.ts', import.meta.url);
