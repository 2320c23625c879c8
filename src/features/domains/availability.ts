import type { Redis } from 'ioredis';
import { ApiError } from '../../errors.js';
import { UpstreamRateLimitedError } from './errors.js';
import type { Logger } from '../../logger.js';
import type { AvailabilityResult } from '../../registrar/port.js';
import { checkRegistrableName, nameRefusal } from '../../registrableName.js';
import { createUpstreamPacer, type UpstreamPacer } from '../../rateLimit/upstreamPacer.js';
import type { Registrars } from '../../registrar/registrars.js';

/** In-process answers, both modes. */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 50_000;
/** Live answers shared by every process (Redis), so a name checked once is not checked again for a minute. */
export const LIVE_CACHE_TTL_MS = 60_000;
/** Upstream checks in flight at once for one bulk request. */
export const BULK_CONCURRENCY = 8;
/**
 * How far ahead a bulk request may take paced upstream slots; names left over answer
 * UPSTREAM_RATE_LIMITED. Shorter than a single check's wait, so bulk traffic can never fill the
 * queue past the point where a single check, or a registration's check, still finds a slot.
 */
export const BULK_DEADLINE_MS = 3_000;
/** How long a single check (or a registration's check) waits for a slot. */
export const SINGLE_MAX_WAIT_MS = 6_000;

export interface AvailabilityAnswer extends AvailabilityResult {
  unicode_name: string;
}

export type BulkSlot = AvailabilityAnswer | { name: string; error: { code: string; detail: string; retry_after?: number } };

export interface AvailabilityOptions {
  redis: Redis;
  logger: Logger;
  /** Live `check` calls all processes together may send per minute (DNSimple: not for volume). */
  checksPerMinute: number;
  /**
   * Names the upstream account (e.g. a hash of its URL and account id): the pace and the shared
   * answers belong to one registrar account, and two deployments on one Redis keep theirs apart.
   */
  upstreamId: string;
  /** ACME_DNS_ZONE: the service's own, never registrable (src/registrableName.ts). */
  reservedZone?: string | undefined;
}

const cacheKey = (ascii: string, livemode: boolean) => `${livemode ? 'live' : 'test'}|${ascii}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Availability per name and mode. Answers are cached: 5 s in the process for both modes, and 60 s
 * in Redis for live ones, so a bulk check followed by single checks of the same names (a common UI
 * pattern), or a retry of the names a paced bulk call could not reach, costs the registrar nothing.
 * Live checks go through a pacer shared by all processes (src/rateLimit/upstreamPacer.ts).
 */
export class AvailabilityService {
  private readonly cache = new Map<string, { answer: AvailabilityAnswer; expiresAt: number }>();
  private readonly pacer: UpstreamPacer;

  constructor(
    private readonly registrars: Registrars,
    private readonly options: AvailabilityOptions,
  ) {
    this.pacer = createUpstreamPacer({ redis: options.redis, logger: options.logger, name: `registrar-check:${options.upstreamId}`, perMinute: options.checksPerMinute });
  }

  /**
   * One name; a bad name is a 422 on `loc`, an unsold TLD too, and a name that is not registrable
   * (`www.example.com`) 422 DOMAIN_NAME_NOT_REGISTRABLE; 503 UPSTREAM_RATE_LIMITED when no slot came in time.
   */
  async check(props: { input: string; livemode: boolean; loc: string[] }): Promise<AvailabilityAnswer> {
    const name = checkRegistrableName(props.input, await this.registrars.prices(), this.options.reservedZone);
    if (!name.ok) throw nameRefusal(name, props.loc);
    return this.lookUp(name.name.name, name.name.unicodeName, props.livemode, Date.now() + SINGLE_MAX_WAIT_MS);
  }

  /**
   * Up to 500 names, answered in input order. Duplicates are checked once; an invalid name, an
   * upstream failure or a name the pacer could not fit in BULK_DEADLINE_MS is an error in that
   * name's slot (with `retry_after` when waiting helps), never a failure of the whole batch.
   */
  async checkMany(props: { inputs: string[]; livemode: boolean }): Promise<BulkSlot[]> {
    const deadline = Date.now() + BULK_DEADLINE_MS;
    const prices = await this.registrars.prices();
    const parsed = props.inputs.map((input) => ({ input, name: checkRegistrableName(input, prices, this.options.reservedZone) }));
    const unique = new Map<string, string>();
    for (const { name } of parsed) if (name.ok) unique.set(name.name.name, name.name.unicodeName);
    const answers = new Map<string, AvailabilityAnswer | ApiError>();
    // Names answered from memory cost no await; only the rest go to the workers.
    const queue: [string, string][] = [];
    for (const entry of unique) {
      const hit = this.remembered(entry[0], props.livemode);
      if (hit) answers.set(entry[0], hit);
      else queue.push(entry);
    }
    let taken = 0;
    const worker = async () => {
      for (let next = queue[taken++]; next; next = queue[taken++]) {
        const [ascii, unicode] = next;
        try {
          answers.set(ascii, await this.lookUp(ascii, unicode, props.livemode, deadline));
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          answers.set(ascii, err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, queue.length) }, worker));
    return parsed.map(({ input, name }): BulkSlot => {
      if (!name.ok) {
        const code = name.type === 'domain_name_not_registrable' ? 'DOMAIN_NAME_NOT_REGISTRABLE' : 'INVALID_DOMAIN_NAME';
        return { name: input, error: { code, detail: name.reason } };
      }
      const answer = answers.get(name.name.name)!;
      if (!(answer instanceof ApiError)) return answer;
      const detail = typeof answer.detail === 'string' ? answer.detail : answer.message;
      const retryAfter = answer instanceof UpstreamRateLimitedError ? { retry_after: answer.retryAfterSeconds } : {};
      return { name: name.name.name, error: { code: answer.code, detail, ...retryAfter } };
    });
  }

  private async lookUp(ascii: string, unicode: string, livemode: boolean, deadline: number): Promise<AvailabilityAnswer> {
    const key = cacheKey(ascii, livemode);
    const hit = this.remembered(ascii, livemode);
    if (hit) return hit;
    const shared = livemode ? await this.sharedAnswer(ascii) : undefined;
    if (shared) {
      this.remember(key, shared);
      return shared;
    }
    const registrar = await this.registrars.forMode(livemode);
    if (livemode) {
      const slot = await this.pacer.reserve(deadline - Date.now());
      if (!slot.granted) throw new UpstreamRateLimitedError(slot.retryAfterSeconds);
      if (slot.waitMs > 0) await sleep(slot.waitMs);
    }
    const answer = { ...(await registrar.checkAvailability(ascii)), name: ascii, unicode_name: unicode };
    this.remember(key, answer);
    if (livemode) await this.share(ascii, answer);
    return answer;
  }

  /** This process's answer for the name, while it is fresh. */
  private remembered(ascii: string, livemode: boolean): AvailabilityAnswer | undefined {
    const hit = this.cache.get(cacheKey(ascii, livemode));
    return hit && hit.expiresAt > Date.now() ? hit.answer : undefined;
  }

  private remember(key: string, answer: AvailabilityAnswer): void {
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
    this.cache.set(key, { answer, expiresAt: Date.now() + CACHE_TTL_MS });
  }

  /** The shared cache is an optimisation: with Redis away, answers come from the registrar (paced). */
  private async sharedAnswer(ascii: string): Promise<AvailabilityAnswer | undefined> {
    if (this.options.redis.status !== 'ready') return undefined;
    try {
      const raw = await this.options.redis.get(`availability:live:${this.options.upstreamId}:${ascii}`);
      return raw ? (JSON.parse(raw) as AvailabilityAnswer) : undefined;
    } catch {
      return undefined;
    }
  }

  private async share(ascii: string, answer: AvailabilityAnswer): Promise<void> {
    if (this.options.redis.status !== 'ready') return;
    try {
      await this.options.redis.set(`availability:live:${this.options.upstreamId}:${ascii}`, JSON.stringify(answer), 'PX', LIVE_CACHE_TTL_MS);
    } catch (err) {
      this.options.logger.debug({ err }, 'could not share an availability answer');
    }
  }
}
