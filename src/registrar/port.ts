/**
 * The registrar port: what the service needs from an upstream registrar, whoever it is.
 * Test mode uses the synthetic adapter (synthetic.ts); live mode speaks DNSimple API v2 (dnsimple.ts).
 *
 * Every method throws the errors of ./errors.ts: RegistrarUnavailableError when a retry may help
 * (see `isTransient`), RegistrarRejectedError / DomainLockedError / DomainNotAvailableError when not.
 *
 * Paid calls (register, transfer, renew) are never sent blindly twice: each reads the upstream state
 * first and recognises work that an earlier attempt already did, and an attempt whose outcome is
 * unknown (timeout, dropped connection, 5xx) answers `pending` with a null reference instead of
 * failing. The caller waits a while and calls again; the read then tells what happened.
 */

/** Money in integer minor units (cents). */
export interface Money {
  amount: number;
  currency: 'USD';
}

/** Our selling prices for one TLD, in integer cents. */
export interface TldPrices {
  register: number;
  renew: number;
  transfer: number;
}

/**
 * The price list handed to adapters. Keys are TLDs without the leading dot, lower case
 * (`com`, `co.uk`). It will be read from the PostgreSQL prices table once that is seeded.
 */
export interface PriceTable {
  currency: 'USD';
  tlds: Readonly<Record<string, TldPrices>>;
}

/** A registrant as the registrar needs it (the contract's Contact without id/version). */
export interface ContactDetails {
  first_name: string;
  last_name: string;
  organization?: string;
  email: string;
  /** E.164, e.g. `+14155550100`. */
  phone: string;
  address1: string;
  address2?: string;
  city: string;
  state?: string;
  postal_code: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

export interface AvailabilityResult {
  name: string;
  available: boolean;
  premium: boolean;
  /** Registration price for one year; null when not available. */
  price: Money | null;
  /** Set when the name cannot be offered for a reason other than being taken. */
  reason?: 'unsupported_tld';
}

interface RegistrantInput {
  registrant: ContactDetails;
  /**
   * The registrant's id at the registrar, when it was synced before (`syncContact`). Without it the
   * adapter creates the upstream contact first. Pass it on retries so no duplicate contact is created.
   */
  registrantRegistrarId?: string;
  /**
   * An earlier attempt's outcome is unknown (its answer was lost, or a retry after a crash): a
   * refusal is then checked against the upstream state, which may show the earlier attempt worked.
   */
  resumed?: boolean;
}

export interface RegisterInput extends RegistrantInput {
  name: string;
  years: number;
  nameservers?: string[];
  /**
   * Ignored by the live adapter: the service renews from the customer's balance, so the registrar's
   * own auto-renew is always left off (see `disableAutoRenew`).
   */
  autoRenew?: boolean;
  /** Required for premium names: the price quoted by `checkAvailability`, sent back as confirmation. */
  premiumPrice?: Money;
}

export type RegisterResult =
  | {
      state: 'registered';
      expiresAt: string;
      /** Null when the registration was recognised from the domain itself (an earlier attempt's answer was lost). */
      registrarReference: string | null;
      registrantRegistrarId: string;
      /** False when the adapter cannot set name servers at registration; call `setNameservers` after. */
      nameserversApplied: boolean;
    }
  /** A null reference: the outcome is unknown (the answer was lost); call `register` again after a while. */
  | { state: 'pending'; registrarReference: string | null; registrantRegistrarId: string; nameserversApplied: false };

export type RegistrationStatus =
  | { state: 'pending' }
  | { state: 'registered'; expiresAt: string }
  | { state: 'failed'; detail?: string };

export interface TransferInput extends RegistrantInput {
  name: string;
  authCode: string;
  /** Required for premium names: the transfer price quoted by `quote`. */
  premiumPrice?: Money;
}

export interface TransferResult {
  state: 'transferring' | 'transferred';
  /** Null when the outcome is unknown (the answer was lost); call `transfer` again after a while. */
  registrarReference: string | null;
  registrantRegistrarId: string;
  /** Known when `transferred`. */
  expiresAt?: string;
}

export interface TransferStatus {
  state: 'pending' | 'completed' | 'rejected' | 'cancelled';
  detail?: string;
  /** Known once completed. */
  expiresAt?: string;
}

export interface RenewInput {
  name: string;
  years: number;
  /** The current expiry as we know it; the synthetic adapter extends from it. */
  currentExpiresAt?: string;
  /**
   * The expiry at the registrar before the first attempt (`domainExpiry`). When given, a renewal
   * that already moved it is recognised instead of being sent again.
   */
  expiresBefore?: string | null;
  /** As for registrations: an earlier attempt's outcome is unknown. */
  resumed?: boolean;
  /** Required for premium names: the per-year renewal price quoted by `quote`. */
  premiumPrice?: Money;
}

export type RenewResult =
  | { state: 'renewed'; expiresAt: string; registrarReference: string | null }
  /** A null reference: the outcome is unknown; call `renew` again (with `expiresBefore`) after a while. */
  | { state: 'pending'; registrarReference: string | null };

/** What the registrar charges us for one year of each paid action on this name. */
export interface Quote {
  premium: boolean;
  register: Money;
  renew: Money;
  transfer: Money;
}

export type RenewalStatus =
  | { state: 'pending' }
  | { state: 'renewed'; expiresAt: string }
  | { state: 'failed'; detail?: string };

export interface ReferenceInput {
  name: string;
  registrarReference: string;
}

/**
 * How the auth code reaches the owner. DNSimple never returns it: `authorize_transfer_out` e-mails
 * it to the domain's administrative contact.
 */
export type AuthCodeResult = { delivery: 'returned'; authCode: string } | { delivery: 'emailed' };

/** A DS record at the parent zone (RFC 4034 section 5): what makes a signed zone's key trusted. */
export interface DelegationSigner {
  keyTag: number;
  algorithm: number;
  digestType: number;
  /** Hexadecimal, as the registrar stores it (compare case-insensitively). */
  digest: string;
}

/** A DS record the registrar holds for the domain, with its id there. */
export interface HeldDelegationSigner extends DelegationSigner {
  id: string;
}

export interface Registrar {
  checkAvailability(name: string): Promise<AvailabilityResult>;
  register(input: RegisterInput): Promise<RegisterResult>;
  /** Polls a registration that `register` answered `pending`. Safe to retry. */
  registrationStatus(input: ReferenceInput): Promise<RegistrationStatus>;
  transfer(input: TransferInput): Promise<TransferResult>;
  /** Safe to retry. */
  transferStatus(input: ReferenceInput): Promise<TransferStatus>;
  /** Asks the registrar to cancel; the answer is the transfer's state right after (often still `pending`). */
  cancelTransfer(input: ReferenceInput): Promise<TransferStatus>;
  renew(input: RenewInput): Promise<RenewResult>;
  /** Polls a renewal that `renew` answered `pending`. Safe to retry. */
  renewalStatus(input: ReferenceInput & { expiresBefore?: string | null }): Promise<RenewalStatus>;
  setLock(input: { name: string; locked: boolean }): Promise<{ locked: boolean }>;
  setNameservers(input: { name: string; nameservers: string[] }): Promise<{ nameservers: string[] }>;
  /**
   * Turns WHOIS privacy on or off; answers the state the registrar confirmed. The first time it is
   * turned on, DNSimple buys the service for our account (a year, then it stays on until turned
   * off). Safe to repeat. Its state is read with the domain (DNSimple's `private_whois`): DNSimple
   * removed `GET …/whois_privacy` (docs/development.md, What only DNSimple's sandbox can confirm).
   */
  setWhoisPrivacy(input: { name: string; enabled: boolean }): Promise<{ enabled: boolean }>;
  /** Throws DomainLockedError while the domain is transfer-locked. */
  getAuthCode(name: string): Promise<AuthCodeResult>;
  /** Per-year prices at the registrar; premium names cost more than the price table says. */
  quote(name: string): Promise<Quote>;
  /** The domain's expiry at the registrar; null when the account does not hold it (yet). */
  domainExpiry(name: string): Promise<string | null>;
  /** Turns the registrar's own auto-renewal off, so it never charges us without a capture. */
  disableAutoRenew(name: string): Promise<void>;
  /** Creates the contact upstream, or updates it when `registrarContactId` is given; returns its upstream id. */
  syncContact(contact: ContactDetails, registrarContactId?: string): Promise<string>;
  /** The DS records the registrar publishes for the domain (every page). */
  listDsRecords(name: string): Promise<HeldDelegationSigner[]>;
  /** Publishes one DS record; not idempotent by itself: list first (the caller does). */
  addDsRecord(name: string, ds: DelegationSigner): Promise<HeldDelegationSigner>;
  /** Withdraws one DS record by its id; one already gone is fine. */
  deleteDsRecord(name: string, id: string): Promise<void>;
}

/**
 * What an adapter may say about its terms. `registrationTermYears`: the one term a registration
 * covers when the registrar takes no period (DNSimple registers for the TLD's minimum, one year);
 * longer terms are that registration followed by a renewal. Absent: `register` takes any `years`.
 */
export interface RegistrarTerms {
  readonly registrationTermYears?: number;
}

/** One domain of the registrar account, as reconciliation compares it with ours. */
export interface RegistrarDomain {
  name: string;
  /** DNSimple: `registered`, `hosted` (a zone only, not a registration), `new`, `expired`, … */
  state: string;
  autoRenew: boolean;
  expiresAt: string | null;
}

export interface RegistrarDomainPage {
  domains: RegistrarDomain[];
  page: number;
  totalPages: number;
}

/** The registrar account as a whole (live only): what reconciliation reads. */
export interface RegistrarAccount {
  /** One page of the account's domains, 1-based; `totalPages` says when to stop. */
  listDomains(input: { page: number; perPage: number }): Promise<RegistrarDomainPage>;
}

/** Lower case, no trailing dot. Validation of the name itself is the caller's job. */
export function normalizeDomainName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

/**
 * The TLD of `name` as priced in `table`: the longest suffix the table knows (`co.uk` before `uk`),
 * leaving at least one label in front. Undefined when the table has none.
 */
export function tldOf(table: PriceTable, name: string): string | undefined {
  const labels = normalizeDomainName(name).split('.');
  for (let i = 1; i < labels.length; i++) {
    const candidate = labels.slice(i).join('.');
    if (Object.hasOwn(table.tlds, candidate)) return candidate;
  }
  return undefined;
}

export function pricesFor(table: PriceTable, name: string): TldPrices | undefined {
  const tld = tldOf(table, name);
  return tld === undefined ? undefined : table.tlds[tld];
}

/** `years` calendar years after `from`, in UTC, as an ISO timestamp. */
export function addYears(from: Date, years: number): string {
  const result = new Date(from.getTime());
  result.setUTCFullYear(result.getUTCFullYear() + years);
  return result.toISOString();
}
