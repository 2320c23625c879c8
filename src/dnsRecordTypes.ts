/**
 * The DNS record types served, by name. Below the features so that the event payload catalogue
 * (src/features/webhooks/eventPayloads.ts) and API keys' record patterns can name them; what each
 * type accepts is in src/features/dns/records.ts.
 */
export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA', 'ALIAS', 'HTTPS', 'SVCB', 'TLSA', 'SSHFP', 'NAPTR', 'PTR', 'DS'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
