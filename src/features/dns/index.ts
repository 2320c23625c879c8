/**
 * The dns feature's public face: what other features, the flows and the wiring may use.
 * Everything else in this folder is its own (docs/architecture.md, "The house").
 */
export { createDnsActivities, type DnsActivities } from './activities.js';
export { applyRecordChanges, type RecordOperation } from './applyRecordChanges.js';
export { deleteDnsRecordsOfDomain, type DnsRecord, dnsRecordsAtNames } from './dnsRecords.repository.js';
export type { DisableDnssecInput, DnssecResult, EnableDnssecInput } from './dnssec.contract.js';
export { dnssecRoutes } from './dnssec.routes.js';
export { createDnssecActivities } from './dnssecActivities.js';
export { DnsZoneNotFoundError } from './provider/errors.js';
export { createDnsProviders, type DnsProvider, type DnsProviders, type RRsetChange } from './provider/index.js';
export { hostName } from './recordSyntax.js';
export { presentDnsRecord } from './dnsRecord.presenter.js';
export { dnsRecordRoutes } from './records.routes.js';
export { checkRecord, type RecordFields, type RecordIssue, type RecordType, TTL_DEFAULT, TTL_MAX, TTL_MIN } from './records.js';
export { zoneFileRoutes } from './zone.routes.js';
export { parseZoneFile } from './zoneFileParser.js';
export { ZONE_RECORD_LIMIT_REFUSAL } from './zoneRecordLimit.js';
export { zoneHost } from './zones.js';
export { zoneTransferRoutes } from './zoneTransfers.routes.js';
export { RECORD_TYPE_SPECS, RECORD_TYPES } from './recordTypes.js';
