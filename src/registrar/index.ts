import type { Config } from '../config.js';
import type { AttemptCounter } from './attemptCounter.js';
import { DnsimpleRegistrar } from './dnsimple.js';
import { RegistrarUnavailableError } from './errors.js';
import type { PriceTable, Registrar, RegistrarAccount } from './port.js';
import { SyntheticRegistrar } from './synthetic.js';

export type * from './port.js';

/**
 * The registrar for live keys. With `REGISTRAR_URL`, `REGISTRAR_ACCOUNT` or `REGISTRAR_TOKEN` unset,
 * every call fails with 503 UPSTREAM_UNAVAILABLE (contract section 1), marked permanent: retrying
 * cannot help until the process is configured.
 */
export function createLiveRegistrar(
  registrar: Config['registrar'],
  prices: PriceTable,
  options: { timeoutMs?: number; paidTimeoutMs?: number } = {},
): Registrar {
  if (!registrar?.account || !registrar.token) return unconfiguredRegistrar();
  return new DnsimpleRegistrar({ baseUrl: registrar.url, accountId: registrar.account, token: registrar.token, ...options }, prices);
}

/** The registrar for test keys: never calls anyone. */
export function createTestRegistrar(prices: PriceTable, attempts: AttemptCounter): Registrar {
  return new SyntheticRegistrar({ prices, attempts });
}

function unconfiguredRegistrar(): Registrar {
  const fail = (): Promise<never> =>
    Promise.reject(
      new RegistrarUnavailableError(
        'The live registrar is not configured (REGISTRAR_URL, REGISTRAR_ACCOUNT, REGISTRAR_TOKEN)',
        { transient: false },
      ),
    );
  return {
    checkAvailability: fail,
    register: fail,
    registrationStatus: fail,
    transfer: fail,
    transferStatus: fail,
    cancelTransfer: fail,
    renew: fail,
    renewalStatus: fail,
    setLock: fail,
    setNameservers: fail,
    setWhoisPrivacy: fail,
    getAuthCode: fail,
    syncContact: fail,
    quote: fail,
    domainExpiry: fail,
    disableAutoRenew: fail,
    listDsRecords: fail,
    addDsRecord: fail,
    deleteDsRecord: fail,
  };
}

/**
 * The live registrar account, for reconciliation. Unconfigured, listing fails as every live call
 * does (503, permanent) rather than reporting an empty account.
 */
export function createLiveRegistrarAccount(registrar: Config['registrar'], prices: PriceTable): RegistrarAccount {
  if (!registrar?.account || !registrar.token) {
    const unconfigured = unconfiguredRegistrar(); // the same permanent 503 as every live call
    return { listDomains: () => unconfigured.checkAvailability('') as Promise<never> };
  }
  return new DnsimpleRegistrar({ baseUrl: registrar.url, accountId: registrar.account, token: registrar.token }, prices);
}
