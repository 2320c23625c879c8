/**
 * What one kind of request was answered, counted by status: the neighbours scenario's bystander
 * (its latencies) and its noisy organisation (its refusals by code) both keep their requests here.
 */
import { summarise } from './report.js';

/** The `code` of the api's error body (`{detail, code}`), if the body is one. */
function errorCode(body: string | undefined): string | undefined {
  try {
    const code = (JSON.parse(body ?? '') as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

export class Answers {
  /** Answers by HTTP status. */
  readonly byStatus: Record<number, number> = {};
  /** Answers other than 2xx by status and the error's `code` (`429 RATE_LIMITED`). */
  readonly refusals: Record<string, number> = {};
  /** Requests that got no answer: the connection failed, or none came within the request's timeout. */
  noAnswer = 0;
  /** Requests the bench itself gave up on when its time was up: neither answered nor failed. */
  cut = 0;
  /** Milliseconds from sending to the end of each answer's body. */
  readonly ms: number[] = [];

  count(status: number, ms?: number, body?: string): void {
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    if (ms !== undefined) this.ms.push(ms);
    if (status >= 300) {
      const refusal = `${status} ${errorCode(body) ?? ''}`.trim();
      this.refusals[refusal] = (this.refusals[refusal] ?? 0) + 1;
    }
  }

  get answered(): number {
    return Object.values(this.byStatus).reduce((sum, n) => sum + n, 0);
  }

  /** Answers of 500 and above. */
  get serverErrors(): number {
    return Object.entries(this.byStatus).reduce((sum, [status, n]) => sum + (Number(status) >= 500 ? n : 0), 0);
  }

  /** `201 ×40, 429 RATE_LIMITED ×3`, then what got no answer. */
  describe(): string {
    const successes = Object.entries(this.byStatus).filter(([status]) => Number(status) < 300);
    // By status: an object lists keys that look like numbers (`503`) before the others (`429 RATE_LIMITED`).
    const refusals = Object.entries(this.refusals).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
    const statuses = [...successes, ...refusals].map(([answer, n]) => `${answer} ×${n}`);
    return [...statuses, ...(this.noAnswer ? [`no answer ×${this.noAnswer}`] : []), ...(this.cut ? [`cut at the end ×${this.cut}`] : [])].join(', ') || 'none sent';
  }

  /**
   * Sends one request and reads its answer whole, counting both. `stop` aborts it without counting
   * it as unanswered (the bench's time is up); `timeoutMs` bounds how long it may wait for an answer.
   */
  async send(url: string, init: RequestInit, props: { timeoutMs: number; stop?: AbortSignal }): Promise<{ status: number; headers: Headers; body: string } | undefined> {
    const timeout = AbortSignal.timeout(props.timeoutMs);
    const started = performance.now();
    try {
      const res = await fetch(url, { ...init, signal: props.stop ? AbortSignal.any([timeout, props.stop]) : timeout });
      const body = await res.text();
      this.count(res.status, performance.now() - started, body);
      return { status: res.status, headers: res.headers, body };
    } catch {
      if (props.stop?.aborted) this.cut += 1;
      else this.noAnswer += 1;
      return undefined;
    }
  }

  /** Merged figures of several kinds. */
  static all(kinds: Iterable<Answers>): Answers {
    const merged = new Answers();
    for (const kind of kinds) {
      for (const [status, n] of Object.entries(kind.byStatus)) merged.byStatus[Number(status)] = (merged.byStatus[Number(status)] ?? 0) + n;
      for (const [refusal, n] of Object.entries(kind.refusals)) merged.refusals[refusal] = (merged.refusals[refusal] ?? 0) + n;
      merged.noAnswer += kind.noAnswer;
      merged.cut += kind.cut;
      merged.ms.push(...kind.ms);
    }
    return merged;
  }

  /** The counts of answers another process printed (their latencies stay in `summary.ms`). */
  static from(summary: AnswersSummary): Answers {
    const answers = new Answers();
    Object.assign(answers.byStatus, summary.byStatus);
    Object.assign(answers.refusals, summary.refusals);
    answers.noAnswer = summary.noAnswer;
    answers.cut = summary.cut;
    return answers;
  }

  /** What a process prints of them: counts and the latencies' summary, not every sample. */
  toJSON(): AnswersSummary {
    return { byStatus: this.byStatus, refusals: this.refusals, noAnswer: this.noAnswer, cut: this.cut, ms: summarise(this.ms) };
  }
}

export interface AnswersSummary {
  byStatus: Record<number, number>;
  refusals: Record<string, number>;
  noAnswer: number;
  cut: number;
  ms: ReturnType<typeof summarise>;
}
