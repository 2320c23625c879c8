import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import { isLoopbackHost } from '../../http/loopback.js';
import { destinationHost, refusedRange, urlProblem, type AddressPolicy } from './addressPolicy.js';

/** Resolves a host name to all its addresses; injectable, so tests never depend on the real DNS. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface SendProps {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Where this endpoint may receive besides public https (src/features/webhooks/addressPolicy.ts). */
  policy: AddressPolicy;
  resolver: Resolver;
}

export interface SendResult {
  /** Null when no answer came. */
  statusCode: number | null;
  durationMs: number;
  /** Why the attempt failed, in words safe to show the endpoint's owner; null for a 2xx. */
  error: string | null;
}

/** Bytes of an answer read before the connection is dropped: nobody reads a receiver's body. */
const MAX_ANSWER_BYTES = 64 * 1024;

class Refused extends Error {}

/**
 * The one address the request will connect to: the literal in the URL, or the host name resolved
 * once here and checked. Every address the name resolves to must pass, so a name that also points
 * inside our network is refused rather than raced. A loopback host allowed to a test-mode endpoint
 * (`npm run dev`) must resolve to loopback only. A refusal names the kind of address, never the
 * address: the endpoint's owner must not learn what an internal name resolves to.
 */
async function checkedAddress(host: string, props: Pick<SendProps, 'policy' | 'resolver'>): Promise<{ address: string; family: number }> {
  const family = net.isIP(host);
  const candidates = family ? [{ address: host, family }] : await props.resolver(host);
  if (candidates.length === 0) throw new Refused(`${host} has no address`);
  if (props.policy.allowPrivate) return candidates[0]!;
  if (props.policy.allowLoopback && isLoopbackHost(host)) {
    if (candidates.some((candidate) => !isLoopbackHost(candidate.address))) throw new Refused(`Refused: ${host} resolves to an address outside this machine`);
    return candidates[0]!;
  }
  for (const candidate of candidates) {
    const refusal = refusedRange(candidate.address);
    if (refusal) throw new Refused(`Refused: ${host} resolves to a ${refusal} address`);
  }
  return candidates[0]!;
}

function describe(err: unknown): string {
  const code = (err as { code?: string }).code;
  const message = err instanceof Error ? err.message : String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * POSTs one webhook: the URL checked again (scheme, credentials, address after resolution), the
 * connection made to the address that was checked (the request's `lookup` answers with it, so the
 * name is never resolved a second time), redirects never followed, and the whole exchange bounded by
 * `timeoutMs`. Never throws: every outcome is a SendResult.
 */
export async function sendWebhook(props: SendProps): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const problem = urlProblem(props.url, props.policy);
  if (problem) return { statusCode: null, durationMs: elapsed(), error: `Refused: ${problem}` };
  const url = new URL(props.url);
  const host = destinationHost(url);
  let target: { address: string; family: number };
  try {
    target = await checkedAddress(host, props);
  } catch (err) {
    return { statusCode: null, durationMs: elapsed(), error: err instanceof Refused ? err.message : `DNS: ${describe(err)}` };
  }
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (err: null, all: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        lookup,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(props.body)), ...props.headers },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const done = () => {
          const ok = status >= 200 && status < 300;
          const error = ok ? null : status >= 300 && status < 400 ? `Answered ${status}; redirects are not followed` : `Answered ${status}`;
          finish({ statusCode: status, error });
        };
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `Timed out after ${props.timeoutMs} ms` });
      request.destroy();
    }, props.timeoutMs);
    // A socket error names the address it tried ("connect ECONNREFUSED 10.1.2.3:443"): the host stands in for it.
    request.on('error', (err) => finish({ statusCode: null, error: describe(err).replaceAll(target.address, host) }));
    request.end(props.body);
  });
}
