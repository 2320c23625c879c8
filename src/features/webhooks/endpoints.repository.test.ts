import { describe, expect, it } from 'vitest';
import { endpointWantsEvent } from './endpoints.repository.js';

const everything = { id: 'we_all', orgId: 'org_a', livemode: false, events: ['*'] };
const records = { id: 'we_records', orgId: 'org_a', livemode: false, events: ['dns_record.created', 'dns_record.deleted'] };
const event = (type: string, props: { orgId?: string; livemode?: boolean; pingEndpointId?: string } = {}) => ({
  type,
  orgId: props.orgId ?? 'org_a',
  livemode: props.livemode ?? false,
  pingEndpointId: props.pingEndpointId ?? null,
});

describe('which endpoints an event goes to', () => {
  it('goes to the endpoints of its organisation and mode subscribed to its type or to everything', () => {
    expect(endpointWantsEvent(everything, event('operation.succeeded'))).toBe(true);
    expect(endpointWantsEvent(records, event('dns_record.created'))).toBe(true);
    expect(endpointWantsEvent(records, event('dns_record.updated'))).toBe(false);
  });

  it('never crosses an organisation or a mode', () => {
    expect(endpointWantsEvent(everything, event('operation.succeeded', { orgId: 'org_b' }))).toBe(false);
    expect(endpointWantsEvent(everything, event('operation.succeeded', { livemode: true }))).toBe(false);
  });

  it('sends a ping only to the endpoint it names, whatever that endpoint subscribes to', () => {
    expect(endpointWantsEvent(records, event('ping', { pingEndpointId: 'we_records' }))).toBe(true);
    expect(endpointWantsEvent(everything, event('ping', { pingEndpointId: 'we_records' }))).toBe(false);
    expect(endpointWantsEvent(records, event('ping', { pingEndpointId: 'we_records', orgId: 'org_b' }))).toBe(false);
  });
});
