import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** A device sign-in kept for one API: what refreshes it and the access token it last gave. */
export interface StoredLogin {
  issuer: string;
  client_id: string;
  access_token: string;
  refresh_token?: string | undefined;
  /** Milliseconds since the epoch. */
  expires_at?: number | undefined;
  email?: string | undefined;
}

export interface Settings {
  /** The API the last `login` was to: the default for later commands. */
  api_url?: string;
  /** The default organisation per API (`orgs use`). */
  default_orgs?: Record<string, string>;
}

interface Credentials {
  logins?: Record<string, StoredLogin>;
}

/** `$XDG_CONFIG_HOME/domain-service`, else `~/.config/domain-service` (the XDG base directory spec). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(env.HOME ?? os.homedir(), '.config');
  return path.join(base, 'domain-service');
}

/**
 * The command line's own files: `config.json` (settings) and `credentials.json` (sign-ins), both
 * readable by the user alone (0600, in a 0700 directory), each replaced whole so a crash never leaves
 * half a file.
 */
export class Store {
  constructor(readonly dir: string = configDir()) {}

  get credentialsPath(): string {
    return path.join(this.dir, 'credentials.json');
  }

  get settingsPath(): string {
    return path.join(this.dir, 'config.json');
  }

  async settings(): Promise<Settings> {
    return this.read<Settings>(this.settingsPath);
  }

  async updateSettings(change: (settings: Settings) => void): Promise<void> {
    const settings = await this.settings();
    change(settings);
    await this.write(this.settingsPath, settings);
  }

  async login(apiUrl: string): Promise<StoredLogin | undefined> {
    return (await this.read<Credentials>(this.credentialsPath)).logins?.[apiUrl];
  }

  async saveLogin(apiUrl: string, login: StoredLogin): Promise<void> {
    const credentials = await this.read<Credentials>(this.credentialsPath);
    credentials.logins = { ...credentials.logins, [apiUrl]: login };
    await this.write(this.credentialsPath, credentials);
  }

  /** Forgets the sign-in to `apiUrl`; true if there was one. */
  async forgetLogin(apiUrl: string): Promise<boolean> {
    const credentials = await this.read<Credentials>(this.credentialsPath);
    if (!credentials.logins?.[apiUrl]) return false;
    delete credentials.logins[apiUrl];
    if (Object.keys(credentials.logins).length === 0) await rm(this.credentialsPath, { force: true });
    else await this.write(this.credentialsPath, credentials);
    return true;
  }

  private async read<T extends object>(file: string): Promise<T> {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {} as T;
      throw new Error(`${file} cannot be read (${(err as Error).message}); fix or remove it`, { cause: err });
    }
  }

  private async write(file: string, value: object): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // mkdir leaves a folder that was already there as it was (a copied dotfile, another tool's umask).
    await chmod(this.dir, 0o700);
    const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    // The mode asked at creation passes through the umask, which may only take bits away; make sure.
    await chmod(temporary, 0o600);
    await rename(temporary, file);
  }
}
