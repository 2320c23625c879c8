import { z } from 'zod';
import { exampleId } from '../../ids.js';
import type { WebhookEndpoint } from './endpoints.repository.js';
import type { WebhookDelivery } from './deliveries.repository.js';

export const WebhookEndpointSchema = z
  .object({
    id: z.string().meta({ example: exampleId('we') }),
    url: z.string().meta({ example: 'https://hooks.example.com/domains' }),
    events: z.array(z.string()).meta({ example: ['operation.succeeded', 'operation.failed'] }).describe('Event types sent to it; `["*"]` for all'),
    description: z.string().nullable().meta({ example: 'Deploy bot' }),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().meta({ example: null }).describe('Why the service turned it off (failing deliveries), when it did'),
    livemode: z.boolean(),
    secret_rotated_until: z.iso.datetime().nullable().meta({ example: null }).describe('Until then the previous secret signs as well'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const WebhookEndpointWithSecretSchema = WebhookEndpointSchema.extend({
  secret: z.string().describe('`whsec_` and base64: the signing secret. Returned only here, once: store it in a secrets manager.'),
}).meta({ id: 'WebhookEndpointWithSecret' });

/** Never includes a secret: they are sealed in the database and shown only when made. */
export function presentWebhookEndpoint(endpoint: WebhookEndpoint): z.infer<typeof WebhookEndpointSchema> {
  const rotatedUntil = endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > new Date() ? endpoint.previousSecretExpiresAt : null;
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabledReason,
    livemode: endpoint.livemode,
    secret_rotated_until: rotatedUntil?.toISOString() ?? null,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}

export const WebhookDeliverySchema = z
  .object({
    id: z.string().meta({ example: exampleId('wd') }),
    event_id: z.string().meta({ example: exampleId('evt') }),
    attempt: z.number().int().describe('1 for the first attempt of this event at this endpoint'),
    status_code: z.number().int().nullable().meta({ example: 200 }).describe('The receiver’s status; null when it did not answer'),
    duration_ms: z.number().int().meta({ example: 84 }),
    error: z.string().nullable().meta({ example: null }).describe('Why the attempt failed (refused address, timeout, status); null when delivered'),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'WebhookDelivery' });

export function presentDelivery(delivery: WebhookDelivery): z.infer<typeof WebhookDeliverySchema> {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    attempt: delivery.attempt,
    status_code: delivery.statusCode,
    duration_ms: delivery.durationMs,
    error: delivery.error,
    created_at: delivery.createdAt.toISOString(),
  };
}
