/**
 * The DNS record types served, by name. Below the features so that the event payload catalogue
 * (src/features/webhooks/eventPayloads.ts) and API keys' record patterns can name them; what each
 * type accepts, where it may stand and how a zone file holds it is declared in
 * src/features/dns/recordTypes.ts, whose table the compiler holds to exactly these names.
 */
export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA', 'ALIAS', 'HTTPS', 'SVCB', 'TLSA', 'SSHFP', 'NAPTR', 'PTR', 'DS'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
