import { z } from 'zod';

export const LivenessSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });

const CheckResultSchema = z.enum(['ok', 'down']).describe('Whether the dependency answers; why not is logged, never shown');

export const ReadinessSchema = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({
      postgres: CheckResultSchema,
      redis: CheckResultSchema,
      temporal: CheckResultSchema,
      worker: CheckResultSchema,
      rate_limiter: CheckResultSchema.describe('`down` while Redis is away and limits are kept per process in memory'),
    }),
  })
  .meta({ id: 'Readiness' });
