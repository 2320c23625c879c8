/**
 * The neighbours scenario's bystander: an organisation's scripts going about their work, one request
 * at a time, a cycle started every `cycleMs` (well inside its plan's rate limits, so that nothing it
 * is answered is its own doing): a test-mode registration, a DNS record created, changed, listed and
 * deleted, its domain and its registration's operation read. Every answer is timed and counted by
 * kind; one that is not the kind's success is counted too.
 */
import { randomBase62 } from '../../src/ids.js';
import { Answers } from '../lib/answers.js';
import type { BenchCustomer } from '../lib/customer.js';
import type { Stack } from '../lib/stack.js';

export const BYSTANDER_REQUESTS = {
  'register a domain': 202,
  'create a record': 201,
  'change the record': 200,
  'list records': 200,
  'delete the record': 204,
  'read the domain': 200,
  'read the operation': 200,
} as const;
export type BystanderRequest = keyof typeof BYSTANDER_REQUESTS;

export type BystanderAnswers = Record<BystanderRequest, Answers>;

/** A request the api has not answered in this long is counted as unanswered. */
const TIMEOUT_MS = 30_000;

export async function runBystander(stack: Stack, c: BenchCustomer, props: { seconds: number; cycleMs: number }): Promise<BystanderAnswers> {
  const answers = Object.fromEntries(Object.keys(BYSTANDER_REQUESTS).map((kind) => [kind, new Answers()])) as BystanderAnswers;
  const org = `${stack.api.url}/api/v1/orgs/${c.orgId}`;
  const records = `${org}/domains/${c.testDomain}/records`;
  const headers = { authorization: `Bearer ${c.testKey}`, 'content-type': 'application/json' };
  const send = async (kind: BystanderRequest, url: string, init: RequestInit = {}) => {
    const answer = await answers[kind].send(url, { headers, ...init }, { timeoutMs: TIMEOUT_MS });
    return answer?.status === BYSTANDER_REQUESTS[kind] && answer.body ? (JSON.parse(answer.body) as { id: string }) : undefined;
  };
  const until = Date.now() + props.seconds * 1_000;
  for (let i = 0; Date.now() < until; i += 1) {
    const started = Date.now();
    const name = `bystander-${randomBase62(12).toLowerCase()}.com`;
    const operation = await send('register a domain', `${org}/domains`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': `bystander-${name}` },
      body: JSON.stringify({ name, years: 1, registrant_contact_id: c.testContactId }),
    });
    const record = await send('create a record', records, { method: 'POST', body: JSON.stringify({ type: 'TXT', name: `b${i}-${randomBase62(6).toLowerCase()}`, content: 'bystander' }) });
    if (record) await send('change the record', `${records}/${record.id}`, { method: 'PATCH', body: JSON.stringify({ ttl: 600 }) });
    await send('list records', `${records}?limit=20`);
    if (record) await send('delete the record', `${records}/${record.id}`, { method: 'DELETE' });
    await send('read the domain', `${org}/domains/${c.testDomain}`);
    if (operation) await send('read the operation', `${org}/operations/${operation.id}`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + props.cycleMs - Date.now())));
  }
  return answers;
}

/** Answers other than each kind's success, as `409 ×2 (create a record)`. */
export function unexpectedAnswers(answers: BystanderAnswers): string[] {
  return Object.entries(answers).flatMap(([kind, of]) => {
    const expected = BYSTANDER_REQUESTS[kind as BystanderRequest];
    const other = Object.entries(of.byStatus).filter(([status]) => Number(status) !== expected);
    return [...other.map(([status, n]) => `${status} ×${n} (${kind})`), ...(of.noAnswer ? [`no answer ×${of.noAnswer} (${kind})`] : [])];
  });
}
