import { parseDomainName } from '../../domains/domainName.js';
import { ApiError, ValidationError } from '../../errors.js';
import { tldOf, type AvailabilityResult, type PriceTable } from '../../registrar/port.js';
import type { Registrars } from './registrars.js';

const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 50_000;
/** Upstream checks in flight at once for one bulk request. */
export const BULK_CONCURRENCY = 8;

export interface AvailabilityAnswer extends AvailabilityResult {
  unicode_name: string;
}

export type BulkSlot = AvailabilityAnswer | { name: string; error: { code: string; detail: string } };

/**
 * Availability per name and mode, cached for a few seconds: a bulk check followed by single checks
 * of the same names (a common UI pattern) costs the registrar one call per name.
 */
export class AvailabilityService {
  private readonly cache = new Map<string, { answer: AvailabilityAnswer; expiresAt: number }>();

  constructor(private readonly registrars: Registrars) {}

  /** One name; a bad name is a 422 on `loc`, an unsold TLD too. */
  async check(props: { input: string; livemode: boolean; loc: string[] }): Promise<AvailabilityAnswer> {
    const prices = await this.registrars.prices();
    const name = this.validate(props.input, prices);
    if (!name.ok) throw new ValidationError([{ loc: props.loc, msg: name.reason, type: name.type }]);
    return this.lookUp(name.ascii, name.unicode, props.livemode);
  }

  /**
   * Up to 500 names, answered in input order. Duplicates are checked once; an invalid name or an
   * upstream failure is an error in that name's slot, never a failure of the whole batch.
   */
  async checkMany(props: { inputs: string[]; livemode: boolean }): Promise<BulkSlot[]> {
    const prices = await this.registrars.prices();
    const parsed = props.inputs.map((input) => ({ input, name: this.validate(input, prices) }));
    const unique = new Map<string, string>();
    for (const { name } of parsed) if (name.ok) unique.set(name.ascii, name.unicode);
    const answers = new Map<string, AvailabilityAnswer | ApiError>();
    const queue = [...unique];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [ascii, unicode] = next;
        try {
          answers.set(ascii, await this.lookUp(ascii, unicode, props.livemode));
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          answers.set(ascii, err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, queue.length) }, worker));
    return parsed.map(({ input, name }): BulkSlot => {
      if (!name.ok) return { name: input, error: { code: 'INVALID_DOMAIN_NAME', detail: name.reason } };
      const answer = answers.get(name.ascii)!;
      if (answer instanceof ApiError) {
        return { name: name.ascii, error: { code: answer.code, detail: typeof answer.detail === 'string' ? answer.detail : answer.message } };
      }
      return answer;
    });
  }

  private validate(input: string, prices: PriceTable) {
    const parsed = parseDomainName(input);
    if (!parsed.ok) return { ok: false as const, reason: parsed.reason, type: 'domain_name_invalid' };
    if (!tldOf(prices, parsed.value.name)) {
      const tld = parsed.value.labels.slice(1).join('.');
      return { ok: false as const, reason: `The TLD .${tld} is not supported; see GET /api/v1/domains/tlds`, type: 'tld_unsupported' };
    }
    return { ok: true as const, ascii: parsed.value.name, unicode: parsed.value.unicodeName };
  }

  private async lookUp(ascii: string, unicode: string, livemode: boolean): Promise<AvailabilityAnswer> {
    const key = `${livemode ? 'live' : 'test'}|${ascii}`;
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit.answer;
    const registrar = await this.registrars.forMode(livemode);
    const answer = { ...(await registrar.checkAvailability(ascii)), name: ascii, unicode_name: unicode };
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
    this.cache.set(key, { answer, expiresAt: Date.now() + CACHE_TTL_MS });
    return answer;
  }
}
