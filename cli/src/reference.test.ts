import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from './program.js';
import { withReference } from './reference.js';

describe('docs/cli.md', () => {
  it('holds the command reference the command definitions make (npm run cli:docs)', async () => {
    const doc = await readFile(path.resolve(import.meta.dirname, '../../docs/cli.md'), 'utf8');
    expect(doc).toBe(withReference(doc, buildProgram()));
    expect(doc).toContain('| `domain-service webhooks listen` |');
  });
});
