import { z } from 'zod';

export const LivenessSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });

const CheckResultSchema = z.string().describe('`ok`, or why the dependency is not usable');

export const ReadinessSchema = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({
      postgres: CheckResultSchema,
      redis: CheckResultSchema,
      temporal: CheckResultSchema,
      worker: CheckResultSchema,
      rate_limiter: CheckResultSchema,
    }),
  })
  .meta({ id: 'Readiness' });

export const NotReadySchema = ReadinessSchema.extend({ detail: z.string(), code: z.literal('NOT_READY') }).meta({
  id: 'NotReady',
});
