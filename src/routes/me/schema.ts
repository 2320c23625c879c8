import { z } from 'zod';
import { SCOPES } from '../../auth/scopes.js';

export const MeSchema = z
  .object({
    id: z.string(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    auth: z.object({
      type: z.enum(['api_key', 'session']),
      key_id: z.string().optional(),
      mode: z.enum(['live', 'test']),
      scopes: z.array(z.enum(SCOPES)),
    }),
    orgs: z.array(z.object({ id: z.string(), name: z.string(), role: z.enum(['owner', 'admin', 'member']) })),
  })
  .meta({ id: 'Me' });
