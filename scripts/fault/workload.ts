/**
 * What each client keeps doing while the faults happen, in test mode and always with an
 * Idempotency-Key: register a domain (every fifth one a `-fail` name the test registrar rejects), top
 * up, write a DNS record, and every third round renew a domain it saw registered. It remembers what it was promised: the
 * operations answered 202 (or 200 for a renewal done at once) and the money topped up.
 */
import type { BenchCustomer } from '../../bench/lib/customer.js';
import { randomBase62 } from '../../src/ids.js';
import type { Answer, Send } from './retryingClient.js';

export interface ClientOutcome {
  orgId: string;
  /** Operation id -> what started it. */
  accepted: Map<string, string>;
  toppedUp: number;
  /** Definite answers no client should get here (say 409 DOMAIN_STATE_CONFLICT for a retried registration). */
  unexpected: string[];
}

const TOP_UP = 1_000;
/** Between rounds: steady work rather than a flood that would only measure the rate limiter. */
const PAUSE_MS = 150;

const bodyField = (answer: Answer, field: string) => (answer.body as Record<string, unknown> | undefined)?.[field];

export async function runClient(props: { index: number; customer: BenchCustomer; send: Send; running: () => boolean }): Promise<ClientOutcome> {
  const { index, customer, send } = props;
  const org = `/api/v1/orgs/${customer.orgId}`;
  const outcome: ClientOutcome = { orgId: customer.orgId, accepted: new Map(), toppedUp: 0, unexpected: [] };
  const pending: { id: string; name: string }[] = [];
  const renewable: string[] = [];
  const expect = (answer: Answer | undefined, statuses: number[], what: string): answer is Answer => {
    if (answer === undefined) return false; // never answered: counted by the retrying client
    if (statuses.includes(answer.status)) return true;
    outcome.unexpected.push(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return false;
  };
  const run = randomBase62(6).toLowerCase();
  for (let round = 1; props.running(); round += 1) {
    const name = `fault-${run}-${index}-${round}${round % 5 === 0 ? '-fail' : ''}.com`;
    const registered = await send('register', 'POST', `${org}/domains`, { name, years: 1, registrant_contact_id: customer.testContactId }, `register-${name}`);
    if (expect(registered, [202], `register ${name}`)) {
      const id = String(bodyField(registered, 'id'));
      outcome.accepted.set(id, `register ${name}`);
      pending.push({ id, name });
    }

    const topUp = await send('top-up', 'POST', `${org}/billing/top-ups`, { amount: TOP_UP }, `top-up-${run}-${index}-${round}`);
    if (expect(topUp, [201], `top-up ${round}`)) outcome.toppedUp += TOP_UP;

    const record = { type: 'A', name: `r${round}`, content: `192.0.2.${(round % 250) + 1}` };
    const written = await send('dns record', 'POST', `${org}/domains/${customer.testDomain}/records`, record, `record-${run}-${index}-${round}`);
    expect(written, [201], `record r${round}`);

    // The oldest registration still running: once it succeeded, its domain can be renewed.
    const oldest = pending[0];
    if (oldest) {
      const op = await send('operation', 'GET', `${org}/operations/${oldest.id}`);
      const status = op?.status === 200 ? bodyField(op, 'status') : undefined;
      if (status === 'succeeded') renewable.push(oldest.name);
      if (status === 'succeeded' || status === 'failed' || status === 'cancelled') pending.shift();
    }
    // Every third round: a renewal may wait up to 10 s for its end, and would otherwise set the pace.
    const domain = round % 3 === 0 ? renewable.shift() : undefined;
    if (domain) {
      const renewed = await send('renew', 'POST', `${org}/domains/${domain}/renew`, { years: 1 }, `renew-${domain}`);
      if (expect(renewed, [200, 202], `renew ${domain}`)) {
        const id = String(bodyField(renewed, renewed.status === 200 ? 'operation_id' : 'id'));
        outcome.accepted.set(id, `renew ${domain}`);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
  return outcome;
}
