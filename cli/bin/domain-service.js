#!/usr/bin/env node
// The domain-service command line. It runs a bundle of its TypeScript source (cli/.bundle/main.js, one
// file, node_modules left outside), rebuilt with esbuild whenever a source file is newer than it: so a
// fresh `npm install` is all it needs, it is never older than its source, and it starts in a fifth of
// the time running the source through tsx takes. Without esbuild it runs the source through tsx
// (docs/cli.md, "How it runs").
import { mkdir, readFile, rename, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 20) {
  process.stderr.write(`domain-service needs Node.js 20 or later; this is ${process.version}\n`);
  process.exit(1);
}

const cliDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(cliDir, 'src/main.ts');
// Two levels below the repository, as the source is: `../../package.json` finds the same file.
const bundleDir = path.join(cliDir, '.bundle');
const bundle = path.join(bundleDir, 'main.js');
// The bundle's own source files (relative to the repository), written beside it when it is built.
const inputsFile = path.join(bundleDir, 'inputs.json');
const repoRoot = path.resolve(cliDir, '..');

/** The bundle, if no file it was built from has changed since (a few dozen stat calls). */
async function freshBundle() {
  try {
    const [built, inputs] = await Promise.all([stat(bundle), readFile(inputsFile, 'utf8').then(JSON.parse)]);
    const times = await Promise.all(inputs.map((input) => stat(path.join(repoRoot, input)).then((s) => s.mtimeMs)));
    return times.every((time) => time <= built.mtimeMs) ? bundle : undefined;
  } catch {
    return undefined;
  }
}

/** Builds the bundle (written under a name of its own, then renamed: runs started together never read half of one). */
async function buildBundle() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  // Dated from before it reads the source: a file saved while it builds makes the next run rebuild.
  const started = new Date();
  const suffix = `${process.pid}.${started.getTime()}.tmp`;
  await mkdir(bundleDir, { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: [entry],
    outfile: `${bundle}.${suffix}`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${major}`,
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
  });
  await writeFile(`${inputsFile}.${suffix}`, JSON.stringify(Object.keys(result.metafile.inputs)));
  await utimes(`${bundle}.${suffix}`, started, started);
  await rename(`${bundle}.${suffix}`, bundle);
  await rename(`${inputsFile}.${suffix}`, inputsFile);
  return bundle;
}

const ready = (await freshBundle()) ?? (await buildBundle().catch(() => undefined));
if (ready) {
  await import(pathToFileURL(ready).href);
} else {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    process.stderr.write('domain-service runs through esbuild or tsx: run `npm install` in its repository (development dependencies included)\n');
    process.exit(1);
  }
  await tsx.tsImport('../src/main.ts', import.meta.url);
}
