import { z } from 'zod';
import { pageSchema, PaginationQuery } from '../../http/pagination.js';
import { EVENT_TYPES, type EventType } from './events.repository.js';
import { EventSchema } from './event.presenter.js';
import { WebhookDeliverySchema, WebhookEndpointSchema } from './endpoint.presenter.js';
import { OrgPath } from '../../http/pathParams.js';

const id = (what: string) => z.string().min(1).max(64).describe(what);

export const EventPath = OrgPath.extend({ event_id: id('Event id (`evt_…`)') });
export const EndpointPath = OrgPath.extend({ endpoint_id: id('Webhook endpoint id (`we_…`)') });
export const DeliveryPath = EndpointPath.extend({ delivery_id: id('Delivery attempt id (`wd_…`)') });

export const EventListQuery = PaginationQuery.extend({
  type: z.enum(EVENT_TYPES).optional().describe('Only events of this type'),
});

export const EventStreamQuery = z.object({
  types: z
    .string()
    .max(1_000)
    .optional()
    .transform((value, ctx) => {
      const types = (value ?? '').split(',').map((type) => type.trim()).filter(Boolean);
      const unknown = types.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
      if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: `Unknown event types: ${unknown.join(', ')}; known: ${EVENT_TYPES.join(', ')}` });
      return types.length > 0 ? (types as EventType[]) : undefined;
    })
    .meta({ example: 'dns_record.created,operation.succeeded' })
    .describe('Comma-separated event types to send; absent: every type'),
});

export const EventStreamHeader = z.object({
  'last-event-id': z
    .string()
    .max(64)
    .optional()
    .describe('The id of the last event received (SSE `Last-Event-ID`): the stream first sends what came after it, if it is still kept (30 days)'),
});

const url = z
  .string()
  .meta({ example: 'https://hooks.example.com/domains' })
  .trim()
  .max(2048)
  .describe(
    'Where events are POSTed: `https`, never an address inside a private network (`http` only with WEBHOOK_ALLOW_PRIVATE, ' +
      'or to loopback for a test-mode endpoint under `npm run dev`)',
  );
const events = z
  .array(z.enum([...EVENT_TYPES, '*']))
  .min(1)
  .max(EVENT_TYPES.length + 1)
  .describe('Event types to send; `["*"]` for all');
const description = z.string().trim().max(500).nullable().optional();

export const CreateEndpointBody = z.object({ url, events, description }).strict().meta({ id: 'CreateWebhookEndpointInput' });

export const UpdateEndpointBody = z
  .object({ url: url.optional(), events: events.optional(), enabled: z.boolean().optional(), description })
  .strict()
  .meta({ id: 'UpdateWebhookEndpointInput', example: { enabled: true } });

export const EventPage = pageSchema(EventSchema).meta({ id: 'EventPage' });
export const EndpointPage = pageSchema(WebhookEndpointSchema).meta({ id: 'WebhookEndpointPage' });
export const DeliveryPage = pageSchema(WebhookDeliverySchema).meta({ id: 'WebhookDeliveryPage' });

export const RetryAccepted = z
  .object({ event_id: z.string(), endpoint_id: z.string(), status: z.literal('queued') })
  .meta({ id: 'WebhookRetryAccepted' });
