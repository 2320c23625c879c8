import { z } from 'zod';
import { exampleId } from '../../ids.js';
import { SCOPES } from '../../auth/scopes.js';

export const MeSchema = z
  .object({
    id: z.string().meta({ example: exampleId('usr') }),
    email: z.string().nullable().meta({ example: 'ada@example.com' }),
    name: z.string().nullable().meta({ example: 'Ada Lovelace' }),
    auth: z.object({
      type: z.enum(['api_key', 'session']),
      key_id: z.string().optional().meta({ example: exampleId('key') }),
      mode: z.enum(['live', 'test']),
      scopes: z.array(z.enum(SCOPES)),
    }),
    orgs: z.array(z.object({ id: z.string().meta({ example: exampleId('org') }), name: z.string().meta({ example: 'Acme Ltd' }), role: z.enum(['owner', 'admin', 'member']) })),
  })
  .meta({ id: 'Me' });
