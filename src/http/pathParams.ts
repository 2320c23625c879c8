import { z } from 'zod';
import { DomainNameSchema } from '../domainName.js';

/**
 * The path parameters most routes share: `/api/v1/orgs/{org_oid}` and `…/domains/{domain}`. Routes
 * extend them with their own (`MemberPath`, `RecordPath`, …).
 */
export const OrgPath = z.object({ org_oid: z.string().describe('Organisation id (`org_…`)') });
export const DomainPath = OrgPath.extend({ domain: DomainNameSchema.describe('The domain name, e.g. `example.com`') });

/**
 * The same parameters in the terser wording the domains, domain-moves and operations routes publish
 * (`org_oid` undescribed, `domain` "The domain name"). Both wordings are kept so the OpenAPI document
 * stays as published; making them one changes what its readers see.
 */
export const TerseOrgPath = z.object({ org_oid: z.string() });
export const TerseDomainPath = TerseOrgPath.extend({ domain: DomainNameSchema.describe('The domain name') });
