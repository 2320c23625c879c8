import { z } from 'zod';
import type { ErrorCode } from '../http/errorCodes.js';

/** A code of the one list (src/http/errorCodes.ts), as a description names it: in backticks. */
export const code = (name: ErrorCode) => `\`${name}\``;

export const FieldErrorSchema = z
  .object({
    loc: z.array(z.string()).describe('Path to the offending input: `body`, `query`, `path` or `header`, then the field'),
    msg: z.string(),
    type: z.string().describe('Error type token'),
  })
  .meta({ id: 'FieldError' });

export const ErrorSchema = z
  .object({
    detail: z.union([z.string(), z.array(FieldErrorSchema)]).describe('Human-readable message, or field errors for 400 and 422'),
    code: z.string().describe(`Stable machine token, e.g. ${code('VALIDATION_ERROR')}, ${code('NOT_FOUND')}`),
  })
  .meta({ id: 'Error' });

/** A request with no Authorization header at all: exactly this body, as the contract fixes it. */
export const NotAuthenticatedSchema = z
  .object({ detail: z.literal('Not authenticated') })
  .strict()
  .meta({ id: 'NotAuthenticated', description: 'No Authorization header: exactly `{"detail": "Not authenticated"}`' });
