import { z } from 'zod';
import { KEY_PRESETS, SCOPES } from '../../auth/scopes.js';
import { ApiKeySchema } from '../../presenters/apiKey.js';
import { pageSchema } from '../../http/pagination.js';

/** What a key may be limited to; the same fields at creation and in PATCH. */
const KeyGuardFields = {
  monthly_spend_limit: z
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .nullable()
    .optional()
    .describe(
      "The most this key's register, transfer and renew requests may reserve in a calendar month (UTC), in minor units, " +
        'in every organisation together; past it 402 `SPEND_LIMIT_REACHED`. null: no limit',
    ),
};

const PresetName = z.enum(Object.keys(KEY_PRESETS) as [keyof typeof KEY_PRESETS, ...(keyof typeof KEY_PRESETS)[]]);

export const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100).describe('A label to recognise the key by'),
    scopes: z
      .array(z.enum(SCOPES))
      .min(1)
      .refine((scopes) => new Set(scopes).size === scopes.length, 'Scopes must not repeat')
      .optional()
      .describe('What the key may do; give this or `preset`'),
    preset: PresetName.optional().describe('A pre-filled scope set; give this or `scopes`'),
    mode: z.enum(['live', 'test']).optional().describe("`test` keys never call the registrar; defaults to the caller's mode"),
    ...KeyGuardFields,
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.scopes === undefined) === (body.preset === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['scopes'], message: 'Give exactly one of scopes or preset' });
    }
  })
  .transform(({ preset, scopes, ...rest }) => ({ ...rest, scopes: (preset ? [...KEY_PRESETS[preset]] : scopes!) }))
  .meta({ id: 'CreateApiKeyInput' });

export const UpdateApiKeyBody = z
  .object(KeyGuardFields)
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'Give at least one field to change')
  .meta({ id: 'UpdateApiKeyInput' });

export const ApiKeyPath = z.object({ key_id: z.string().min(1).max(64) });

export const ApiKeyPage = pageSchema(ApiKeySchema).meta({ id: 'ApiKeyPage' });

export const PresetsSchema = z
  .object({ data: z.array(z.object({ id: PresetName, scopes: z.array(z.enum(SCOPES)) })) })
  .meta({ id: 'ApiKeyPresets' });
