import { createClient, type DomainClient } from '../../client/src/index.js';
import { CliError } from './errors.js';
import { isLoopback } from './loopback.js';
import { refreshLogin } from './signIn.js';
import { Store, type StoredLogin } from './store.js';

/** The options every command takes (root options of the program). */
export interface GlobalOptions {
  apiUrl?: string | undefined;
  org?: string | undefined;
  test?: boolean | undefined;
  json?: boolean | undefined;
}

export const DEFAULT_API_URL = 'http://127.0.0.1:8080';
/** An access token this close to its end is refreshed before use. */
const REFRESH_MARGIN_MS = 120_000;

/**
 * The API's origin. Plain `http:` only to this machine: anywhere else the token (a key, or a
 * sign-in's access token) would cross the network readable by anyone on the way. `from` names where
 * the address came from, so the refusal says what to change.
 */
function normalizeApiUrl(text: string, from: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`${text} (${from}) is not a URL; give the API's address, e.g. ${DEFAULT_API_URL}`, 'usage');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`${text} (${from}): the API is reached over http or https`, 'usage');
  if (url.protocol === 'http:' && !isLoopback(url)) {
    throw new CliError(
      `${url.origin} (${from}) is plain http to another machine, which would send your token unencrypted; use https://${url.host}, or http only to this machine (127.0.0.1, localhost)`,
      'usage',
      'INSECURE_API_URL',
    );
  }
  return url.origin;
}

/** The API's address and where it came from: `--api-url`, DOMAIN_SERVICE_API_URL, the last login's, or the development default. */
function chosenApiUrl(options: GlobalOptions, env: NodeJS.ProcessEnv, saved: string | undefined, store: Store): string {
  if (options.apiUrl !== undefined) return normalizeApiUrl(options.apiUrl, '--api-url');
  if (env.DOMAIN_SERVICE_API_URL !== undefined) return normalizeApiUrl(env.DOMAIN_SERVICE_API_URL, 'DOMAIN_SERVICE_API_URL');
  if (saved !== undefined) return normalizeApiUrl(saved, `api_url in ${store.settingsPath}, from the last login`);
  return normalizeApiUrl(DEFAULT_API_URL, 'the default');
}

/** Where a command's credential comes from. */
export type Credential = { kind: 'api_key'; key: string } | { kind: 'login'; login: StoredLogin } | { kind: 'none' };

/**
 * What a command acts with: the API's address (`--api-url`, DOMAIN_SERVICE_API_URL, the last login's,
 * or the development default), the credential (DOMAIN_SERVICE_API_KEY first, else the stored sign-in,
 * refreshed as it nears its end), the mode (`--test`; a test key is always test mode) and the Browser
 * SDK client that carries them.
 */
export class Session {
  readonly api: DomainClient;
  readonly mode: 'live' | 'test';

  private constructor(
    readonly store: Store,
    readonly apiUrl: string,
    private credential: Credential,
    readonly options: GlobalOptions,
  ) {
    const testKey = credential.kind === 'api_key' && credential.key.startsWith('svc_test_');
    if (options.test && credential.kind === 'api_key' && !testKey) {
      throw new CliError('--test needs a test-mode key (svc_test_…); DOMAIN_SERVICE_API_KEY is a live key', 'usage');
    }
    this.mode = options.test || testKey ? 'test' : 'live';
    this.api = createClient({
      baseUrl: apiUrl,
      token: () => this.token(),
      mode: this.mode,
      headers: { 'user-agent': 'domain-service-cli/1' },
    });
  }

  static async open(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env, store = new Store()): Promise<Session> {
    const settings = await store.settings();
    const apiUrl = chosenApiUrl(options, env, settings.api_url, store);
    const key = env.DOMAIN_SERVICE_API_KEY?.trim();
    const login = key ? undefined : await store.login(apiUrl);
    const credential: Credential = key ? { kind: 'api_key', key } : login ? { kind: 'login', login } : { kind: 'none' };
    return new Session(store, apiUrl, credential, options);
  }

  get credentialKind(): Credential['kind'] {
    return this.credential.kind;
  }

  /** The bearer token for the next request. */
  async token(): Promise<string> {
    const credential = this.credential;
    if (credential.kind === 'api_key') return credential.key;
    if (credential.kind === 'none') {
      throw new CliError(`Not signed in to ${this.apiUrl}: run \`domain-service login\`, or set DOMAIN_SERVICE_API_KEY`, 'unauthenticated', 'NOT_SIGNED_IN');
    }
    const { login } = credential;
    if (login.expires_at !== undefined && login.expires_at - REFRESH_MARGIN_MS < Date.now()) await this.refresh();
    return (this.credential as { login: StoredLogin }).login.access_token;
  }

  /** Refreshes the stored sign-in now (its access token expired, or an event stream said so). */
  async refresh(): Promise<void> {
    if (this.credential.kind !== 'login') return;
    const refreshed = await refreshLogin(this.credential.login);
    await this.store.saveLogin(this.apiUrl, refreshed);
    this.credential = { kind: 'login', login: refreshed };
  }

  /** The organisation to act in: `--org`, DOMAIN_SERVICE_ORG, the default (`orgs use`), or the only one there is. */
  async org(env: NodeJS.ProcessEnv = process.env): Promise<string> {
    const chosen = this.options.org ?? env.DOMAIN_SERVICE_ORG ?? (await this.store.settings()).default_orgs?.[this.apiUrl];
    if (chosen) return chosen;
    const me = await this.api.getMe();
    if (me.orgs.length === 1) return me.orgs[0]!.id;
    if (me.orgs.length === 0) throw new CliError('You belong to no organisation yet: create one with `domain-service orgs create NAME`', 'usage', 'NO_ORGANISATION');
    const names = me.orgs.map((org) => `${org.id} (${org.name})`).join(', ');
    throw new CliError(`Say which organisation: --org, or a default with \`domain-service orgs use ORG\`; yours: ${names}`, 'usage', 'ORGANISATION_NEEDED');
  }
}
