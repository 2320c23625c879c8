import { Client, Connection } from '@temporalio/client';
import proto, { type temporal as TemporalProto } from '@temporalio/proto';
import { temporalAddress, type Config } from '../config.js';
import { SEARCH_ATTRIBUTES } from './searchAttributes.js';
import { encryptedDataConverter } from './payloadCodec.js';
import type { PayloadKeyring } from './payloadKeys.js';
import { tracingClientInterceptors } from '../telemetry/tracing.js';

// The proto package is CommonJS: take the runtime enums off its default export.
const { temporal } = proto;

export interface Temporal {
  connection: Connection;
  client: Client;
}

/**
 * The process's one Temporal client. The connection is lazy, so the api starts (and reports
 * itself not ready) while Temporal is still coming up instead of crashing. Every payload it sends
 * is encrypted (see `payloadCodec.ts`).
 */
export function createTemporal(config: Config, payloadKeys: PayloadKeyring): Temporal {
  const connection = Connection.lazy({ address: temporalAddress(config) });
  const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter: encryptedDataConverter(payloadKeys), interceptors: tracingClientInterceptors() });
  return { connection, client };
}

const INDEXED_VALUE_TYPE: Record<string, TemporalProto.api.enums.v1.IndexedValueType> = {
  KEYWORD: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  BOOL: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
};

/**
 * Registers the custom search attributes that are missing. Idempotent; needs the operator API
 * (a self-hosted cluster or the dev server). Returns the names it added.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const present = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTES.filter((key) => !present.has(key.name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((key) => [key.name, INDEXED_VALUE_TYPE[key.type]!])),
  });
  return missing.map((key) => key.name);
}

/** Whether any worker has polled the task queue for workflow tasks recently. */
export async function taskQueueHasPollers(temporalClients: Pick<Temporal, 'connection'>, config: Config): Promise<boolean> {
  const response = await temporalClients.connection.workflowService.describeTaskQueue({
    namespace: config.temporal.namespace,
    taskQueue: { name: config.temporal.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (response.pollers ?? []).length > 0;
}
