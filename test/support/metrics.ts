import { expect } from 'vitest';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Scrapes a `/metrics` URL and reads the samples of the text format (`name{a="x",b="y"} 1`). */
export async function scrape(metricsUrl: string): Promise<{ text: string; samples: Sample[] }> {
  const res = await fetch(metricsUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const samples = text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, name, rawLabels, value] = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line) ?? [];
      expect(name, line).toBeDefined();
      const labels = Object.fromEntries([...(rawLabels ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
      return { name: name!, labels, value: Number(value) };
    });
  return { text, samples };
}

/** A metric's values keyed by some of its labels, over the samples of one scrape. */
export function byLabel(samples: Sample[], name: string, key: (labels: Record<string, string>) => string): Record<string, number> {
  return Object.fromEntries(samples.filter((s) => s.name === name).map((s) => [key(s.labels), s.value]));
}

/** The value of the one sample of `name` whose labels include `labels`; 0 when there is none yet. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.reduce((sum, s) => sum + s.value, 0);
}
