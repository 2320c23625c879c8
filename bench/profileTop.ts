/**
 * `npx tsx bench/profileTop.ts FILE.cpuprofile [N]`: the N frames with the most self time in a V8 CPU
 * profile (what `node --cpu-prof` writes; BENCH_PROFILE=1 makes the bench write them), and the time by
 * package, so the note can say what bounds a path.
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, count = '25'] = process.argv.slice(2);
if (!file) throw new Error('usage: tsx bench/profileTop.ts FILE.cpuprofile [N]');
const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const frames = new Map<string, number>();
const packages = new Map<string, number>();
for (const [id, micros] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '');
  const key = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
  frames.set(key, (frames.get(key) ?? 0) + micros);
  const pkg = url === '' ? functionName || '(native)' : url.includes('node_modules/') ? url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1') : url.startsWith('node:') ? 'node internals' : 'ours';
  packages.set(pkg, (packages.get(pkg) ?? 0) + micros);
}
const top = (map: Map<string, number>, n: number) =>
  [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([key, micros]) => `${((micros / total) * 100).toFixed(1).padStart(5)} %  ${key}`);
console.log(`${(total / 1e6).toFixed(1)} s sampled\n\nself time by frame:\n${top(frames, Number(count)).join('\n')}\n\nself time by package:\n${top(packages, 15).join('\n')}`);
