import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

export function createLogger(
  config: Pick<Config, 'logLevel'>,
  bindings: Record<string, string> = {},
  destination?: DestinationStream,
): Logger {
  const options = {
    level: config.logLevel,
    base: { service: 'domain-service', ...bindings },
    // Belt and braces: nothing that carries a credential is ever written, whatever a caller logs.
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.key', '*.secret', '*.token', 'authorization'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
