/**
 * A client as the interface asks callers to behave (contract 9.1): every request that got no definite
 * answer (a network error, a 5xx, 409 IDEMPOTENCY_KEY_IN_USE, 429) is sent again with the same
 * Idempotency-Key, after `Retry-After` when the answer has one. It records every answer it saw, and
 * for each logical request when it started, when its key was first refused as in use, and when it ended.
 */

export interface Answer {
  status: number;
  body: unknown;
}

export interface LogicalRequest {
  what: string;
  attempts: number;
  /** When the first attempt was sent and when the definite answer came (or the client gave up), in ms since the epoch. */
  startedAt: number;
  endedAt: number;
  /** When the attempt that got the definite answer (or the last one) was sent. */
  lastSentAt: number;
  /** When the key was first refused as in use (IDEMPOTENCY_KEY_IN_USE), in ms since the epoch; undefined when never. */
  keyInUseSince?: number;
  answered: boolean;
  /** The answers in order, repeats counted: `network error (ECONNREFUSED) × 40, 503 × 2, 201`. */
  trail: string;
}

export interface ClientLog {
  /** Every answer by status (and error code for 409 and 429), `network error (cause)` for no answer. */
  answers: Map<string, number>;
  requests: LogicalRequest[];
}

/** Without Retry-After: a short pause, as a well-behaved client would take before retrying. */
const DEFAULT_RETRY_MS = 250;
/** One attempt's bound: a frozen dependency may hold a request, but not forever. */
const ATTEMPT_TIMEOUT_MS = 30_000;

export interface ClientProps {
  baseUrl: string;
  token: string;
  /** The client's address as the trusted proxy (TRUST_PROXY) reports it. */
  forwardedFor: string;
  /** After this long without a definite answer a request is given up and counted as never answered. */
  giveUpAfterMs: number;
  log: ClientLog;
}

function retryAfterMs(res: Response): number {
  const seconds = Number(res.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1_000 : DEFAULT_RETRY_MS;
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return text;
  }
}

const codeOf = (body: unknown) => (body && typeof body === 'object' && 'code' in body ? String(body.code) : undefined);

/** Not definite: the request may or may not have happened, or was not looked at. */
function retryable(status: number, code: string | undefined): boolean {
  return status >= 500 || status === 429 || (status === 409 && code === 'IDEMPOTENCY_KEY_IN_USE');
}

export function newClientLog(): ClientLog {
  return { answers: new Map(), requests: [] };
}

/** Why a request got no answer: a refused or reset connection, the attempt's timeout, … */
function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? (err as Error).name;
}

export function retryingClient(props: ClientProps) {
  return async function send(what: string, method: string, pathname: string, body?: unknown, idempotencyKey?: string): Promise<Answer | undefined> {
    const started = Date.now();
    let inUseSince: number | undefined;
    const trail: [string, number][] = [];
    const count = (answer: string) => {
      props.log.answers.set(answer, (props.log.answers.get(answer) ?? 0) + 1);
      const last = trail.at(-1);
      if (last?.[0] === answer) last[1] += 1;
      else trail.push([answer, 1]);
    };
    const headers: Record<string, string> = {
      authorization: `Bearer ${props.token}`,
      'x-forwarded-for': props.forwardedFor,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    };
    let lastSentAt = started;
    const finish = (attempts: number, answered: boolean) =>
      props.log.requests.push({
        what,
        attempts,
        startedAt: started,
        endedAt: Date.now(),
        lastSentAt,
        keyInUseSince: inUseSince,
        answered,
        trail: trail.map(([answer, n]) => (n > 1 ? `${answer} × ${n}` : answer)).join(', '),
      });
    for (let attempt = 1; ; attempt += 1) {
      let pause = DEFAULT_RETRY_MS;
      lastSentAt = Date.now();
      try {
        const res = await fetch(`${props.baseUrl}${pathname}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        const parsed = await readBody(res);
        const code = codeOf(parsed);
        count(res.status === 409 || res.status === 429 ? `${res.status} ${code ?? ''}`.trim() : String(res.status));
        if (!retryable(res.status, code)) {
          finish(attempt, true);
          return { status: res.status, body: parsed };
        }
        if (code === 'IDEMPOTENCY_KEY_IN_USE') inUseSince ??= Date.now();
        pause = retryAfterMs(res);
      } catch (err) {
        count(`network error (${networkCause(err)})`);
      }
      if (Date.now() + pause - started > props.giveUpAfterMs) {
        finish(attempt, false);
        return undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  };
}

export type Send = ReturnType<typeof retryingClient>;
