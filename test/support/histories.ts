/**
 * Recorded workflow histories, for replay tests (test/workflows/replay.test.ts). A history is
 * stored with its payloads decrypted: the test run's encryption key is random, so a sealed history
 * could not be opened by a later run. Histories are written only when RECORD_HISTORIES=1, and only
 * those not recorded yet: what older code recorded is never overwritten (the replay test guards it).
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { METADATA_ENCODING_KEY, type Payload } from '@temporalio/common';
import proto, { type temporal } from '@temporalio/proto';
import { EncryptionCodec, ENCRYPTED_ENCODING } from '../../src/temporal/payloadCodec.js';
import type { TestApp } from './testApp.js';

type History = temporal.api.history.v1.IHistory;
// The proto package is CommonJS: take the message class off its default export.
const HistoryMessage = proto.temporal.api.history.v1.History;

/**
 * As JSON with bytes in base64, 64-bit numbers as strings and enums by name. (The SDK's
 * historyToJSON cannot be used: @temporalio/common bundles another protobufjs than @temporalio/proto.)
 */
function historyToJson(history: History): string {
  return JSON.stringify(HistoryMessage.toObject(HistoryMessage.fromObject(history), { bytes: String, longs: String, enums: String }), null, 1);
}

function historyFromJson(json: string): History {
  return HistoryMessage.fromObject(JSON.parse(json) as Record<string, unknown>);
}

export const HISTORIES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'workflows', 'histories');

function isEncryptedPayload(value: unknown): value is Payload {
  if (typeof value !== 'object' || value === null || !('metadata' in value) || !('data' in value)) return false;
  const encoding = (value as Payload).metadata?.[METADATA_ENCODING_KEY];
  return encoding !== undefined && encoding !== null && Buffer.from(encoding).toString('utf8') === ENCRYPTED_ENCODING;
}

/** Replaces, in place, every encrypted payload anywhere in `node` by its plain form. */
async function decryptPayloads(node: unknown, codec: EncryptionCodec): Promise<void> {
  if (typeof node !== 'object' || node === null || ArrayBuffer.isView(node)) return;
  const record = node as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (isEncryptedPayload(value)) [record[key]] = await codec.decode([value]);
    else await decryptPayloads(value, codec);
  }
}

/**
 * The workflow's history with plain payloads; written to `histories/<name>.json` when
 * RECORD_HISTORIES=1. `name` says which path of which workflow it shows (`transfer-timed-out`).
 */
export async function recordHistory(app: TestApp, workflowId: string, name: string, runId?: string): Promise<History> {
  // `runId`: that run alone, e.g. one that ended by continuing as new.
  const handle = app.deps.temporal.client.workflow.getHandle(workflowId, runId, runId ? { followRuns: false } : undefined);
  // The whole run: a failed workflow is a recorded path like any other.
  await handle.result().catch(() => undefined);
  const history = await handle.fetchHistory();
  // A copy: the caller may replay the fetched (encrypted) history with the app's data converter.
  const plain = historyFromJson(historyToJson(history));
  await decryptPayloads(plain, new EncryptionCodec(app.deps.payloadKeys));
  if (process.env.RECORD_HISTORIES === '1') {
    await mkdir(HISTORIES_DIR, { recursive: true });
    // `wx`: a history already recorded is never replaced (it stands for the code that made it).
    await writeFile(path.join(HISTORIES_DIR, `${name}.json`), `${historyToJson(plain)}\n`, { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
  return plain;
}

export interface StoredHistory {
  /** The file's name without `.json`, used as the workflow id when replaying. */
  name: string;
  workflowType: string;
  history: History;
}

/** Every history under `histories/`. */
export async function storedHistories(): Promise<StoredHistory[]> {
  const files = (await readdir(HISTORIES_DIR)).filter((file) => file.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => {
      const history = historyFromJson(await readFile(path.join(HISTORIES_DIR, file), 'utf8'));
      const workflowType = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
      return { name: file.replace(/\.json$/, ''), workflowType, history };
    }),
  );
}

/** The workflow id an operation runs under (for a history of an operation started over HTTP). */
export async function operationWorkflowId(app: TestApp, operationId: string): Promise<string> {
  const { rows } = await app.deps.db.query<{ workflow_id: string }>('SELECT workflow_id FROM operations WHERE id = $1', [operationId]);
  if (!rows[0]) throw new Error(`no operation ${operationId}`);
  return rows[0].workflow_id;
}
