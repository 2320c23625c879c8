/**
 * A client as the interface asks callers to behave (contract 9.1): every request that got no definite
 * answer (a network error, a 5xx, 409 IDEMPOTENCY_KEY_IN_USE, 429) is sent again with the same
 * Idempotency-Key, after `Retry-After` when the answer has one. It records every answer it saw, and
 * for each logical request when it started, when it ended, and how long each of its retries waited
 * for the key (`waits`).
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
  /**
   * The request's waits for its key, each from the moment an attempt that reached an api process
   * failed without a definite answer (a 5xx, or its connection cut by a crash: that attempt may have
   * held the key) to the next attempt that got past the key (failed again, or answered). The first
   * wait starts at the first attempt. Contract 9.1 promises the key back within 10 s of each such failure.
   */
  waits: Wait[];
  answered: boolean;
  /** The answers in order, repeats counted: `network error (ECONNREFUSED) × 40, 503 × 2, 201`. */
  trail: string;
}

export interface Wait {
  from: number;
  to: number;
  /** Whether the key was refused as in use (IDEMPOTENCY_KEY_IN_USE) during the wait. */
  refusedInUse: boolean;
}

export interface ClientLog {
  /** Every answer by status (and error code for 409 and 429), `network error (cause)` for no answer. */
  answers: Map<string, number>;
  requests: LogicalRequest[];
  /** The request under way, if any: what an interrupted run prints of each client. */
  current?: { what: string; startedAt: number; trail: () => string };
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
    const waits: Wait[] = [];
    let wait = { from: started, refusedInUse: false };
    /** An attempt that got past the key ends the wait; one that failed there starts the next. */
    const pastTheKey = (sentAt: number, failed: boolean) => {
      waits.push({ ...wait, to: sentAt });
      if (failed) wait = { from: Date.now(), refusedInUse: false };
    };
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
    const trailText = () => trail.map(([answer, n]) => (n > 1 ? `${answer} × ${n}` : answer)).join(', ');
    props.log.current = { what, startedAt: started, trail: trailText };
    const finish = (attempts: number, answered: boolean) => {
      props.log.current = undefined;
      props.log.requests.push({
        what,
        attempts,
        startedAt: started,
        endedAt: Date.now(),
        lastSentAt,
        waits,
        answered,
        trail: trailText(),
      });
    };
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
          pastTheKey(lastSentAt, false);
          finish(attempt, true);
          return { status: res.status, body: parsed };
        }
        if (code === 'IDEMPOTENCY_KEY_IN_USE') wait.refusedInUse = true;
        else if (res.status >= 500) pastTheKey(lastSentAt, true);
        pause = retryAfterMs(res);
      } catch (err) {
        const cause = networkCause(err);
        count(`network error (${cause})`);
        // A refused connection reached no process; any other cut one did, and may have held the key.
        if (cause !== 'ECONNREFUSED') pastTheKey(lastSentAt, true);
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
