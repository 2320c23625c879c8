import { pino, type DestinationStream, type Logger } from 'pino';
import { trace } from '@opentelemetry/api';
import type { Config } from './config.js';

function traceIds(): Record<string, string> {
  const context = trace.getActiveSpan()?.spanContext();
  return context ? { traceId: context.traceId, spanId: context.spanId } : {};
}

export type { Logger };

export function createLogger(
  config: Pick<Config, 'logLevel'>,
  bindings: Record<string, string> = {},
  destination?: DestinationStream,
): Logger {
  const options = {
    level: config.logLevel,
    // The trace and span of the line's request, workflow or activity when tracing is on, so a
    // request id from a 500 body (logged with it) leads to its trace.
    mixin: traceIds,
    base: { service: 'domain-service', ...bindings },
    // Belt and braces: nothing that carries a credential is ever written, whatever a caller logs.
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.key', '*.secret', '*.token', 'authorization'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
