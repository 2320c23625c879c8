import { METADATA_ENCODING_KEY, ValueError, type Payload, type PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { PayloadKeyring } from './payloadKeys.js';

// The proto package is CommonJS: take the message classes off its default export.
const { temporal } = proto;

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const PURPOSE = 'temporal-payload';

const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

/**
 * Encrypts every payload the client or the worker sends to Temporal (workflow and activity inputs
 * and results, memos, signals, queries), so the server, its database and the Web UI hold
 * ciphertext only. The whole payload, metadata included, is sealed; the key id travels in the
 * metadata so a rotated-out key still opens old histories. Payloads written before encryption was
 * turned on pass through decode unchanged.
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keyring: PayloadKeyring) {}

  // The work is synchronous; running it in `then` turns a throw into the rejection the SDK expects.
  encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.resolve().then(() => payloads.map((payload) => this.encrypt(payload)));
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.resolve().then(() => payloads.map((payload) => this.decrypt(payload)));
  }

  private encrypt(payload: Payload): Payload {
    const { keyId, data } = this.keyring.seal(temporal.api.common.v1.Payload.encode(payload).finish(), PURPOSE);
    return {
      metadata: { [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(keyId) },
      data,
    };
  }

  private decrypt(payload: Payload): Payload {
    if (text(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) return payload;
    const keyId = text(payload.metadata?.[KEY_ID_METADATA]);
    if (!keyId || !payload.data) throw new ValueError(`an ${ENCRYPTED_ENCODING} payload lacks its key id or data`);
    return temporal.api.common.v1.Payload.decode(this.keyring.open(keyId, payload.data, PURPOSE));
  }
}

/** The data converter every Temporal client and worker of this service uses. */
export function encryptedDataConverter(keyring: PayloadKeyring): { payloadCodecs: PayloadCodec[] } {
  return { payloadCodecs: [new EncryptionCodec(keyring)] };
}
