import { pino, type DestinationStream, type Logger } from 'pino';
import { trace } from '@opentelemetry/api';
import type { Config } from './config.js';

function traceIds(): Record<string, string> {
  const context = trace.getActiveSpan()?.spanContext();
  return context ? { traceId: context.traceId, spanId: context.spanId } : {};
}

export type { Logger };

/**
 * Errors anywhere in a line, as `{type, message, stack, cause, …}`: pino serialises only a top-level
 * `err`, and an Error's own fields are not enumerable, so `{ error }` (as Temporal's SDK logs a failed
 * activity or workflow, under `temporal`) would be written as `{}`. Looks a few levels down; a cycle
 * or anything deeper is left as it is.
 */
function withErrorsSerialised(value: unknown, depth = 0): unknown {
  if (value instanceof Error) return pino.stdSerializers.errWithCause(value);
  if (depth >= 4 || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  let changed: Record<string, unknown> | undefined;
  for (const [key, field] of Object.entries(value)) {
    const serialised = withErrorsSerialised(field, depth + 1);
    if (serialised !== field) (changed ??= { ...value })[key] = serialised;
  }
  return changed ?? value;
}

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
    // In place of pino's own `err` serializer, which would serialise again what the formatter has.
    serializers: { err: withErrorsSerialised },
    formatters: { log: (line: Record<string, unknown>) => withErrorsSerialised(line) as Record<string, unknown> },
    // Belt and braces: nothing that carries a credential is ever written, whatever a caller logs.
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.key', '*.secret', '*.token', 'authorization'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
