import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { ApiError, UpstreamError } from '../errors.js';
import { RegistrarOutcomeUnknownError } from '../registrar/errors.js';
import { isNetworkFailure } from '../upstream/network.js';
import { processMetrics, type UpstreamOutcome } from './registry.js';

export type UpstreamSystem = 'registrar' | 'dns_provider';
/** Adapters by name: a metric label, so a closed list. */
export const UPSTREAM_ADAPTERS = ['dnsimple', 'powerdns', 'powerdns_test', 'synthetic', 'unconfigured'] as const;
export type UpstreamAdapter = (typeof UPSTREAM_ADAPTERS)[number];

const tracer = trace.getTracer('domain-service');

/** How a failed call reads on a dashboard: the upstream said no, was away, or may have acted. */
export function upstreamOutcome(err: unknown): UpstreamOutcome {
  if (err instanceof RegistrarOutcomeUnknownError) return 'outcome_unknown';
  if (err instanceof UpstreamError) return err.transient || err.status !== 502 ? 'unavailable' : 'rejected';
  if (err instanceof ApiError) return err.status < 500 ? 'rejected' : 'error';
  return isNetworkFailure(err) ? 'unavailable' : 'error';
}

/**
 * The port with every asynchronous method timed into `upstream_call_duration_seconds` (label `call`:
 * the method's name) and wrapped in a span `<system> <call>`. Nothing else changes: same results,
 * same errors. The adapters stay free of metrics code, and a new port method is counted without edits.
 */
export function instrumentPort<T extends object>(port: T, labels: { system: UpstreamSystem; adapter: UpstreamAdapter }): T {
  return new Proxy(port, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => observed(() => method.apply(target, args), { ...labels, call: property });
    },
  });
}

/** Runs the call inside its span (so the adapter's HTTP request is the span's child) and times it. */
function observed(call: () => unknown, labels: { system: UpstreamSystem; adapter: UpstreamAdapter; call: string }): unknown {
  const span = tracer.startSpan(`${labels.system} ${labels.call}`, { attributes: { 'upstream.system': labels.system, 'upstream.adapter': labels.adapter } });
  const stop = processMetrics().upstreamCallDuration.startTimer(labels);
  const finish = (outcome: UpstreamOutcome) => {
    stop({ outcome });
    if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    span.setAttribute('upstream.outcome', outcome);
    span.end();
  };
  let result: unknown;
  try {
    result = context.with(trace.setSpan(context.active(), span), call);
  } catch (err) {
    finish(upstreamOutcome(err));
    throw err;
  }
  if (!(result instanceof Promise)) {
    // A synchronous helper, not a call upstream: no sample.
    span.end();
    return result;
  }
  return result.then(
    (value: unknown) => {
      finish('ok');
      return value;
    },
    (err: unknown) => {
      finish(upstreamOutcome(err));
      throw err;
    },
  );
}
