import type { Redis } from 'ioredis';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/** Models that belong to a grant: revoking the grant removes them all. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
const PREFIX = 'dev-oidc:';

/**
 * The development OpenID provider's storage in Redis (oidc-provider's adapter interface), so its
 * sign-ins and refresh tokens outlive an api restart and dashboard sessions keep working across
 * one. Each model is a JSON value with the provider's expiry; grants keep a list of their members.
 */
export class DevOidcRedisAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly redis: Redis,
  ) {}

  private key(id: string): string {
    return `${PREFIX}${this.model}:${id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const key = this.key(id);
    const multi = this.redis.multi();
    if (expiresIn > 0) multi.set(key, JSON.stringify(payload), 'EX', expiresIn);
    else multi.set(key, JSON.stringify(payload));
    if (GRANTABLE.has(this.model) && payload.grantId) {
      const grantKey = `${PREFIX}grant:${payload.grantId}`;
      multi.rpush(grantKey, key);
      // The list lives as long as its longest-lived member: set on the first, extended by longer ones.
      if (expiresIn > 0) multi.expire(grantKey, expiresIn, 'NX').expire(grantKey, expiresIn, 'GT');
    }
    for (const [index, value] of [['uid', payload.uid], ['userCode', payload.userCode]] as const) {
      if (value) multi.set(`${PREFIX}${index}:${value}`, id, 'EX', Math.max(expiresIn, 1));
    }
    await multi.exec();
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const stored = await this.redis.get(this.key(id));
    return stored ? (JSON.parse(stored) as AdapterPayload) : undefined;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const id = await this.redis.get(`${PREFIX}uid:${uid}`);
    return id ? this.find(id) : undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const id = await this.redis.get(`${PREFIX}userCode:${userCode}`);
    return id ? this.find(id) : undefined;
  }

  async consume(id: string): Promise<void> {
    const payload = await this.find(id);
    if (!payload) return;
    await this.redis.set(this.key(id), JSON.stringify({ ...payload, consumed: Math.floor(Date.now() / 1000) }), 'KEEPTTL');
  }

  async destroy(id: string): Promise<void> {
    await this.redis.del(this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const grantKey = `${PREFIX}grant:${grantId}`;
    const members = await this.redis.lrange(grantKey, 0, -1);
    await this.redis.del(...members, grantKey);
  }
}

export interface DevAccount {
  email: string;
  name: string;
}

const ACCOUNT_TTL_SECONDS = 30 * 86_400;

/** What people typed into the development sign-in form, by account id. */
export class DevAccounts {
  constructor(private readonly redis: Redis) {}

  async save(accountId: string, account: DevAccount): Promise<void> {
    await this.redis.set(`${PREFIX}account:${accountId}`, JSON.stringify(account), 'EX', ACCOUNT_TTL_SECONDS);
  }

  /** The stored account; one never stored (or forgotten) is named after its e-mail's local part. */
  async find(accountId: string): Promise<DevAccount> {
    const stored = await this.redis.get(`${PREFIX}account:${accountId}`);
    if (stored) return JSON.parse(stored) as DevAccount;
    const email = accountId.replace(/^dev\|/, '');
    return { email, name: email.split('@')[0] ?? email };
  }
}
