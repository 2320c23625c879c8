/**
 * The (API key, organisation) pairs this process has already recorded in api_key_organizations, so
 * only a key's first request in an organisation pays for the write (requireOrgMember). Bounded: a
 * forgotten pair costs one more insert that changes nothing.
 */
export class RecordedKeyOrganizations {
  private readonly pairs = new Set<string>();

  constructor(private readonly capacity = 50_000) {}

  has(keyId: string, orgId: string): boolean {
    return this.pairs.has(`${keyId}|${orgId}`);
  }

  add(keyId: string, orgId: string): void {
    if (this.pairs.size >= this.capacity) this.pairs.clear();
    this.pairs.add(`${keyId}|${orgId}`);
  }
}
