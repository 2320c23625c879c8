import { parseDomainName, type DomainName } from './domainName.js';
import { ApiError, ValidationError } from './errors.js';
import { tldOf, type PriceTable } from './registrar/port.js';

/**
 * Whether a name may be registered (or transferred in), in both modes: exactly one label below a
 * suffix the price table sells (`example.com`, `example.co.uk`; never `www.example.com`, nor a sold
 * suffix itself), and not the service's own (ACME_DNS_ZONE or a name under it). In test mode names
 * are held per organisation while the test DNS host serves one zone per name, so a name inside
 * another customer's domain would shadow that domain's records there (docs/api-guide.md, Test mode).
 */
export type RegistrableName =
  | { ok: true; name: DomainName; tld: string }
  | { ok: false; type: 'domain_name_invalid' | 'tld_unsupported' | 'domain_name_not_registrable'; reason: string };

const under = (name: string, zone: string) => name === zone || name.endsWith(`.${zone}`);

export function checkRegistrableName(input: string, prices: PriceTable, reservedZone: string | undefined): RegistrableName {
  const parsed = parseDomainName(input);
  if (!parsed.ok) return { ok: false, type: 'domain_name_invalid', reason: parsed.reason };
  const name = parsed.value;
  const tld = tldOf(prices, name.name);
  if (tld === undefined) {
    return { ok: false, type: 'tld_unsupported', reason: `The TLD .${name.labels.slice(1).join('.')} is not supported; see GET /api/v1/domains/tlds` };
  }
  if (reservedZone !== undefined && under(name.name, reservedZone)) {
    return { ok: false, type: 'domain_name_not_registrable', reason: `${name.name} is in ${reservedZone}, which this service uses for ACME-DNS; it cannot be registered` };
  }
  if (Object.hasOwn(prices.tlds, name.name)) {
    return { ok: false, type: 'domain_name_not_registrable', reason: `${name.name} is a suffix names are registered under, not a name; register one label below it` };
  }
  const front = name.name.slice(0, -tld.length - 1).split('.');
  if (front.length > 1) {
    const registrable = `${front[front.length - 1]}.${tld}`;
    return {
      ok: false,
      type: 'domain_name_not_registrable',
      reason: `${name.name} is not a registrable name: register ${registrable} (one label below .${tld}), then add ${front.slice(0, -1).join('.')} as a record of it`,
    };
  }
  return { ok: true, name, tld };
}

/** 422 DOMAIN_NAME_NOT_REGISTRABLE: the name parses and its TLD is sold, but it is not one a customer may hold. */
export class DomainNameNotRegistrableError extends ApiError {
  constructor(loc: string[], msg: string) {
    super('DOMAIN_NAME_NOT_REGISTRABLE', [{ loc, msg, type: 'domain_name_not_registrable' }]);
  }
}

/** The 422 of a refused name, at `loc`: VALIDATION_ERROR for a malformed name or an unsold TLD, else DOMAIN_NAME_NOT_REGISTRABLE. */
export function nameRefusal(refused: Extract<RegistrableName, { ok: false }>, loc: string[]): ApiError {
  if (refused.type === 'domain_name_not_registrable') return new DomainNameNotRegistrableError(loc, refused.reason);
  return new ValidationError([{ loc, msg: refused.reason, type: refused.type }]);
}
