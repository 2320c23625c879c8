import { createHash } from 'node:crypto';
import type { AttemptCounter } from './attemptCounter.js';
import { DomainLockedError, DomainNotAvailableError, RegistrarRejectedError, RegistrarUnavailableError } from './errors.js';
import {
  addYears,
  normalizeDomainName,
  pricesFor,
  type AuthCodeResult,
  type AvailabilityResult,
  type ContactDetails,
  type DelegationSigner,
  type HeldDelegationSigner,
  type Money,
  type PriceTable,
  type Quote,
  type ReferenceInput,
  type RegisterInput,
  type RegisterResult,
  type Registrar,
  type RegistrationStatus,
  type RenewalStatus,
  type RenewInput,
  type RenewResult,
  type TldPrices,
  type TransferInput,
  type TransferResult,
  type TransferStatus,
} from './port.js';

/**
 * The documented test-mode names (contract section 3): the FIRST label's suffix decides.
 * - `-taken`: unavailable; registering it is DOMAIN_NOT_AVAILABLE.
 * - `-premium`: available at 10x the table price; register needs that price confirmed.
 * - `-locked`: locked at the registry: transfer, auth code and unlocking fail with DOMAIN_LOCKED.
 * - `-flaky`: each operation except availability answers 503 twice, then succeeds (counted per
 *   operation and name in the shared AttemptCounter).
 * - `-fail`: register and transfer fail permanently with REGISTRAR_REJECTED.
 */
export type SyntheticBehaviour = 'taken' | 'premium' | 'locked' | 'flaky' | 'fail';

const SUFFIXES: readonly SyntheticBehaviour[] = ['taken', 'premium', 'locked', 'flaky', 'fail'];
export const PREMIUM_MULTIPLIER = 10;
export const FLAKY_FAILURES = 2;

export function syntheticBehaviour(name: string): SyntheticBehaviour | undefined {
  const firstLabel = normalizeDomainName(name).split('.')[0] ?? '';
  return SUFFIXES.find((suffix) => firstLabel.endsWith(`-${suffix}`));
}

type FlakyOperation = 'register' | 'registrationStatus' | 'transfer' | 'transferStatus' | 'cancelTransfer' | 'renew' | 'renewalStatus' | 'setLock' | 'setNameservers' | 'setWhoisPrivacy' | 'getAuthCode';

export interface SyntheticRegistrarOptions {
  prices: PriceTable;
  /** Shared across processes in production (RedisAttemptCounter), so retries on any worker count. */
  attempts: AttemptCounter;
  now?: () => Date;
}

/** References carry what the stateless adapter needs to answer status calls: `synthetic|kind|name|expiry`. */
function reference(kind: 'registration' | 'transfer' | 'renewal', name: string, expiresAt?: string): string {
  return ['synthetic', kind, name, ...(expiresAt ? [expiresAt] : [])].join('|');
}

function parseReference(kind: 'registration' | 'transfer' | 'renewal', input: ReferenceInput): { expiresAt?: string } {
  const [tag, refKind, refName, expiresAt] = input.registrarReference.split('|');
  if (tag !== 'synthetic' || refKind !== kind || refName !== normalizeDomainName(input.name)) {
    throw new RegistrarRejectedError(`Unknown ${kind} reference ${input.registrarReference} for ${input.name}`);
  }
  return expiresAt ? { expiresAt } : {};
}

function digest(text: string, length: number): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, length);
}

/** Deterministic, network-free registrar for test mode. */
export class SyntheticRegistrar implements Registrar {
  private readonly prices: PriceTable;
  private readonly attempts: AttemptCounter;
  private readonly now: () => Date;

  constructor(options: SyntheticRegistrarOptions) {
    this.prices = options.prices;
    this.attempts = options.attempts;
    this.now = options.now ?? (() => new Date());
  }

  checkAvailability(rawName: string): Promise<AvailabilityResult> {
    const name = normalizeDomainName(rawName);
    const prices = pricesFor(this.prices, name);
    if (!prices) return Promise.resolve({ name, available: false, premium: false, price: null, reason: 'unsupported_tld' });
    const behaviour = syntheticBehaviour(name);
    if (behaviour === 'taken') return Promise.resolve({ name, available: false, premium: false, price: null });
    const premium = behaviour === 'premium';
    return Promise.resolve({
      name,
      available: true,
      premium,
      price: { amount: this.registerPrice(name, prices), currency: this.prices.currency },
    });
  }

  async register(input: RegisterInput): Promise<RegisterResult & { registrarReference: string }> {
    const name = normalizeDomainName(input.name);
    const prices = this.tldPrices(name);
    checkYears(input.years);
    await this.flakyGate('register', name);
    const behaviour = syntheticBehaviour(name);
    if (behaviour === 'taken') throw new DomainNotAvailableError(name);
    if (behaviour === 'fail') throw new RegistrarRejectedError(`The registry rejected the registration of ${name} (synthetic -fail name)`);
    if (behaviour === 'premium') {
      const quoted = this.registerPrice(name, prices);
      if (input.premiumPrice?.amount !== quoted || input.premiumPrice.currency !== this.prices.currency) {
        throw new RegistrarRejectedError(`${name} is premium: premium_price must confirm the quoted ${quoted} (cents, USD)`);
      }
    }
    const expiresAt = addYears(this.now(), input.years);
    return {
      state: 'registered',
      expiresAt,
      registrarReference: reference('registration', name, expiresAt),
      registrantRegistrarId: await this.syncContact(input.registrant, input.registrantRegistrarId),
      nameserversApplied: true,
    };
  }

  async registrationStatus(input: ReferenceInput): Promise<RegistrationStatus> {
    const { expiresAt } = parseReference('registration', input);
    await this.flakyGate('registrationStatus', normalizeDomainName(input.name));
    return { state: 'registered', expiresAt: expiresAt ?? addYears(this.now(), 1) };
  }

  async transfer(input: TransferInput): Promise<TransferResult & { registrarReference: string }> {
    const name = normalizeDomainName(input.name);
    this.tldPrices(name);
    await this.flakyGate('transfer', name);
    const behaviour = syntheticBehaviour(name);
    if (behaviour === 'locked') throw new DomainLockedError(name);
    if (behaviour === 'fail') throw new RegistrarRejectedError(`The losing registrar rejected the transfer of ${name} (synthetic -fail name)`);
    if (input.authCode.trim() === '') throw new RegistrarRejectedError(`An auth code is required to transfer ${name}`);
    return {
      state: 'transferring',
      registrarReference: reference('transfer', name),
      registrantRegistrarId: await this.syncContact(input.registrant, input.registrantRegistrarId),
    };
  }

  /** A synthetic transfer completes on the first status call after it was submitted. */
  async transferStatus(input: ReferenceInput): Promise<TransferStatus> {
    parseReference('transfer', input);
    await this.flakyGate('transferStatus', normalizeDomainName(input.name));
    return { state: 'completed', expiresAt: addYears(this.now(), 1) };
  }

  async cancelTransfer(input: ReferenceInput): Promise<TransferStatus> {
    parseReference('transfer', input);
    await this.flakyGate('cancelTransfer', normalizeDomainName(input.name));
    return { state: 'cancelled', detail: 'Cancelled by customer' };
  }

  async renew(input: RenewInput): Promise<RenewResult & { registrarReference: string }> {
    const name = normalizeDomainName(input.name);
    this.tldPrices(name);
    checkYears(input.years);
    await this.flakyGate('renew', name);
    const now = this.now();
    const current = input.currentExpiresAt ? new Date(input.currentExpiresAt) : now;
    const base = Number.isNaN(current.getTime()) || current < now ? now : current;
    const expiresAt = addYears(base, input.years);
    return { state: 'renewed', expiresAt, registrarReference: reference('renewal', name, expiresAt) };
  }

  async renewalStatus(input: ReferenceInput): Promise<RenewalStatus> {
    const { expiresAt } = parseReference('renewal', input);
    await this.flakyGate('renewalStatus', normalizeDomainName(input.name));
    return { state: 'renewed', expiresAt: expiresAt ?? addYears(this.now(), 1) };
  }

  async setLock(input: { name: string; locked: boolean }): Promise<{ locked: boolean }> {
    const name = normalizeDomainName(input.name);
    await this.flakyGate('setLock', name);
    // A registry lock is not the owner's to lift.
    if (!input.locked && syntheticBehaviour(name) === 'locked') throw new DomainLockedError(name);
    return { locked: input.locked };
  }

  async setNameservers(input: { name: string; nameservers: string[] }): Promise<{ nameservers: string[] }> {
    await this.flakyGate('setNameservers', normalizeDomainName(input.name));
    return { nameservers: [...input.nameservers] };
  }

  /** Any supported TLD takes it; stateless, so the answer is what was asked (`-flaky`: 503 twice first). */
  async setWhoisPrivacy(input: { name: string; enabled: boolean }): Promise<{ enabled: boolean }> {
    const name = normalizeDomainName(input.name);
    this.tldPrices(name);
    await this.flakyGate('setWhoisPrivacy', name);
    return { enabled: input.enabled };
  }

  async getAuthCode(rawName: string): Promise<AuthCodeResult> {
    const name = normalizeDomainName(rawName);
    await this.flakyGate('getAuthCode', name);
    if (syntheticBehaviour(name) === 'locked') throw new DomainLockedError(name);
    return { delivery: 'returned', authCode: `SYN-${digest(`auth-code:${name}`, 16)}` };
  }

  /** `-premium` names cost PREMIUM_MULTIPLIER times the table for every action, as at a real registry. */
  quote(rawName: string): Promise<Quote> {
    const name = normalizeDomainName(rawName);
    const prices = this.tldPrices(name);
    const factor = syntheticBehaviour(name) === 'premium' ? PREMIUM_MULTIPLIER : 1;
    const usd = (amount: number): Money => ({ amount: amount * factor, currency: this.prices.currency });
    return Promise.resolve({ premium: factor > 1, register: usd(prices.register), renew: usd(prices.renew), transfer: usd(prices.transfer) });
  }

  /** Stateless: it holds no domains, so it never recognises an earlier renewal. */
  domainExpiry(): Promise<string | null> {
    return Promise.resolve(null);
  }

  /** Nothing renews on its own here. */
  disableAutoRenew(): Promise<void> {
    return Promise.resolve();
  }

  syncContact(contact: ContactDetails, registrarContactId?: string): Promise<string> {
    if (registrarContactId) return Promise.resolve(registrarContactId);
    const canonical = JSON.stringify(Object.entries(contact).sort(([a], [b]) => a.localeCompare(b)));
    return Promise.resolve(`synthetic-contact-${digest(canonical, 20)}`);
  }

  /**
   * Stateless, as the rest of this adapter: it holds no DS, so the list is empty and an added
   * record comes back with an id derived from it. Test mode publishes nothing at a parent
   * (docs/api-guide.md, DNSSEC); this answers the port's shape for callers that ask anyway.
   */
  listDsRecords(): Promise<HeldDelegationSigner[]> {
    return Promise.resolve([]);
  }

  addDsRecord(rawName: string, ds: DelegationSigner): Promise<HeldDelegationSigner> {
    const name = normalizeDomainName(rawName);
    return Promise.resolve({ ...ds, id: `synthetic-ds-${digest(`${name}|${ds.keyTag}|${ds.algorithm}|${ds.digestType}|${ds.digest}`, 16)}` });
  }

  deleteDsRecord(): Promise<void> {
    return Promise.resolve();
  }

  private registerPrice(name: string, prices: TldPrices): number {
    return syntheticBehaviour(name) === 'premium' ? prices.register * PREMIUM_MULTIPLIER : prices.register;
  }

  private tldPrices(name: string): TldPrices {
    const prices = pricesFor(this.prices, name);
    if (!prices) throw new RegistrarRejectedError(`The TLD of ${name} is not supported`);
    return prices;
  }

  /** For `-flaky` names: the first FLAKY_FAILURES attempts of each (operation, name) answer 503. */
  private async flakyGate(operation: FlakyOperation, name: string): Promise<void> {
    if (syntheticBehaviour(name) !== 'flaky') return;
    let attempt: number;
    try {
      attempt = await this.attempts.increment(`${operation}:${name}`);
    } catch (err) {
      throw new RegistrarUnavailableError('The synthetic registrar could not count the attempt', { cause: err });
    }
    if (attempt <= FLAKY_FAILURES) {
      throw new RegistrarUnavailableError(
        `The registrar answered 503 to ${operation} for ${name} (synthetic -flaky name, attempt ${attempt} of ${FLAKY_FAILURES} failing)`,
        { upstreamStatus: 503 },
      );
    }
  }
}

function checkYears(years: number): void {
  if (!Number.isInteger(years) || years < 1 || years > 10) {
    throw new RegistrarRejectedError(`years must be a whole number from 1 to 10, not ${years}`);
  }
}
