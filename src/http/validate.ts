import type { RouterMiddleware } from '@koa/router';
import type { z } from 'zod';
import { ValidationError, type FieldError } from '../errors.js';
import type { AppState } from './context.js';
import type { RequestSchemas, RouteInput } from './route.js';

export type InputState = AppState & { input: RouteInput<RequestSchemas> };

function toFieldErrors(part: keyof RequestSchemas, error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    loc: [part, ...issue.path.map(String)],
    msg: issue.message,
    type: issue.code,
  }));
}

/**
 * Parses path, query, headers and body against the route's schemas and reports every problem
 * at once as the spec's 422 list. The parsed values land in `ctx.state.input`.
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
      const schema = schemas[part];
      if (!schema) continue;
      const result = await schema.safeParseAsync(sources[part]);
      if (result.success) input[part] = result.data;
      else errors.push(...toFieldErrors(part, result.error));
    }
    if (errors.length > 0) throw new ValidationError(errors);
    (ctx.state as InputState).input = input as unknown as RouteInput<RequestSchemas>;
    await next();
  };
}
