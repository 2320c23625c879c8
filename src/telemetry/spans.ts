import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import type { Redis } from 'ioredis';

const tracer = trace.getTracer('domain-service');

/**
 * Runs `work` in a client span named `name` (a child of the current span). With tracing off the
 * tracer is OpenTelemetry's no-op one, so this costs a function call.
 */
export function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await work();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
      throw err;
    } finally {
      span.end();
    }
  });
}

type SendCommand = Redis['sendCommand'];

/**
 * A span per Redis command sent inside a trace (`redis EVALSHA`), without its arguments (keys name
 * users and API keys). OpenTelemetry's ioredis instrumentation does not support ioredis 6, hence this.
 */
export function traceRedisCommands(redis: Redis): void {
  const send: SendCommand = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    if (!trace.getActiveSpan()) return send(command, stream);
    const span = tracer.startSpan(`redis ${command.name.toUpperCase()}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system': 'redis', 'db.operation': command.name },
    });
    const sent = send(command, stream);
    command.promise.then(
      () => span.end(),
      (err: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
        span.end();
      },
    );
    return sent;
  };
}
