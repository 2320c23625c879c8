import type { RouterMiddleware } from '@koa/router';
import type { z } from 'zod';
import { ValidationError, type FieldError } from '../errors.js';
import type { AppState } from './context.js';
import type { RequestSchemas, ParsedRequest } from './route.js';
import { unsafeTextErrors } from './safeText.js';
// Every schema's 422 messages in words, not zod's own.
import './validationWords.js';

export type InputState = AppState & { input: ParsedRequest<RequestSchemas> };

function toFieldErrors(part: keyof RequestSchemas, error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    loc: [part, ...issue.path.map(String)],
    msg: issue.message,
    // A custom check names its own type (`DomainNameSchema`: `domain_name_invalid`).
    type: issue.code === 'custom' && typeof issue.params?.type === 'string' ? issue.params.type : issue.code,
  }));
}

const sameLoc = (a: string[], b: string[]) => a.length === b.length && a.every((part, i) => part === b[i]);

/**
 * Path ids are read (membership, rate-limit plans) before the route's schemas run: one with NUL or
 * an unpaired surrogate is refused first, so it never reaches a query. Runs right after authentication.
 */
export function refuseUnsafePath(): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    const errors = unsafeTextErrors(ctx.params, ['path']);
    if (errors.length > 0) throw new ValidationError(errors);
    await next();
  };
}

/**
 * Parses path, query, headers and body against the route's schemas and reports every problem
 * at once as the spec's 422 list. The parsed values land in `ctx.state.input`. Before any schema,
 * every string is checked for text that cannot be stored (`safeText.ts`): that is the default for
 * every field of every route, not something each schema opts into.
 */
export function validate(schemas: RequestSchemas): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    const sources: Record<keyof RequestSchemas, unknown> = {
      path: ctx.params,
      query: ctx.query,
      header: ctx.headers,
      body: ctx.state.body,
    };
    const errors: FieldError[] = [];
    const input: Record<string, unknown> = {};
    for (const part of ['path', 'query', 'header', 'body'] as const) {
      const unsafe = unsafeTextErrors(sources[part], [part]);
      errors.push(...unsafe);
      const schema = schemas[part];
      if (!schema) continue;
      const result = await schema.safeParseAsync(sources[part]);
      if (result.success) input[part] = result.data;
      else errors.push(...toFieldErrors(part, result.error).filter((e) => !unsafe.some((u) => sameLoc(u.loc, e.loc))));
    }
    if (errors.length > 0) throw new ValidationError(errors);
    (ctx.state as InputState).input = input as unknown as ParsedRequest<RequestSchemas>;
    await next();
  };
}
