import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isErrorCode, statusesOf } from './errorCodes.js';
import { buildServedDocument } from '../../client/scripts/document.js';
import { renderErrorCodes } from '../../client/scripts/errorCodes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Examples whose code is the first backticked name of a route's own words, and that name is a
 * setting, not a code: kept as they are while the OpenAPI document stays byte for byte.
 */
const SETTINGS_TAKEN_FOR_CODES = new Set(['get /api/v1/sign-in/device 404', 'post /api/v1/orgs/{org_oid}/acme-dns/register 404', 'post /api/v1/acme-dns/update 404']);

type Responses = Record<string, { description?: string; content?: Record<string, { example?: { code?: unknown } }> }>;

function errorAnswers(document: object): { where: string; status: number; description: string; code: unknown }[] {
  const answers = [];
  const { paths } = document as { paths: Record<string, Record<string, { responses?: Responses }>> };
  for (const [route, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) < 400) continue;
        const code = response.content?.['application/json']?.example?.code;
        answers.push({ where: `${method} ${route} ${status}`, status: Number(status), description: response.description ?? '', code });
      }
    }
  }
  return answers;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

describe('the one list of error codes', () => {
  it('holds every code the OpenAPI document names, each under a status its entry allows', () => {
    const problems: string[] = [];
    for (const answer of errorAnswers(buildServedDocument())) {
      const named = [...answer.description.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!).filter(isErrorCode);
      for (const code of named) if (!statusesOf(code).includes(answer.status)) problems.push(`${answer.where}: ${code} is answered with ${statusesOf(code).join(' or ')}`);
      // An answer without an error body (the readiness check's) names no code.
      if (answer.code === undefined || SETTINGS_TAKEN_FOR_CODES.has(answer.where)) continue;
      if (typeof answer.code !== 'string' || !isErrorCode(answer.code)) problems.push(`${answer.where}: example code ${JSON.stringify(answer.code)} is not in the list`);
      else if (!statusesOf(answer.code).includes(answer.status)) problems.push(`${answer.where}: example code ${answer.code} is answered with ${statusesOf(answer.code).join(' or ')}`);
    }
    expect(problems).toEqual([]);
  });

  it('holds no code that nothing answers', async () => {
    const files = (await sourceFiles(path.join(root, 'src'))).filter((file) => !file.endsWith(path.join('http', 'errorCodes.ts')));
    const text = (await Promise.all(files.map((file) => readFile(file, 'utf8')))).join('\n');
    expect(Object.keys(ERROR_CODES).filter((code) => !text.includes(`'${code}'`))).toEqual([]);
  });

  it('is the SDK’s list (client/src/errorCodes.ts; else run npm run client:generate)', async () => {
    expect(await readFile(path.join(root, 'client/src/errorCodes.ts'), 'utf8')).toBe(renderErrorCodes());
  });
});
