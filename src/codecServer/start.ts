import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { DEFAULT_HTTP_TIMEOUTS, listen, type ListeningServer } from '../http/listen.js';
import { EncryptionCodec } from '../temporal/payloadCodec.js';
import { resolvePayloadKeyring } from '../temporal/payloadKeys.js';
import { createCodecServerApp } from './app.js';

/**
 * The codec server as a process of its own (`--role codec-server`): it needs the payload keys and
 * nothing else (no database, Redis or Temporal), so it can run beside the operator's Web UI.
 */
export async function startCodecServer(config: Config, logger: Logger): Promise<ListeningServer> {
  const keyring = await resolvePayloadKeyring(config);
  const app = createCodecServerApp({
    codec: new EncryptionCodec(keyring),
    corsOrigins: config.codecServer.corsOrigins,
    token: config.codecServer.token,
    logger,
  });
  const server = await listen(app, config.codecServer.host, config.codecServer.port, DEFAULT_HTTP_TIMEOUTS, 'CODEC_SERVER_PORT');
  logger.info(
    { url: server.url, corsOrigins: config.codecServer.corsOrigins, tokenRequired: config.codecServer.token !== undefined, activeKeyId: keyring.activeKeyId },
    'codec server listening',
  );
  return server;
}
