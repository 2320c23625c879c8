import { sample } from 'openapi-sampler';
import type { ErrorCode } from '../http/errorCodes.js';

type JSONSchema7 = Parameters<typeof sample>[0];

/** Codes for statuses whose description names none. */
const DEFAULT_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'INVALID_JSON',
  401: 'INVALID_TOKEN',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'INVALID_JSON',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMITED',
  500: 'INTERNAL',
};

/**
 * An error body as the api writes it for this status: the code is the first one the description
 * names (so an example reads like the route's commonest refusal), field errors for 400 and 422.
 */
export function errorExample(status: number, description: string): { detail: unknown; code: string } {
  const code = /`([A-Z][A-Z0-9_]+)`/.exec(description)?.[1] ?? DEFAULT_CODES[status] ?? 'ERROR';
  if (status === 400) return { detail: [{ loc: ['body'], msg: 'Unexpected end of JSON input', type: 'json_invalid' }], code };
  if (status === 422 && code === 'VALIDATION_ERROR') {
    return { detail: [{ loc: ['body', 'name'], msg: 'Required', type: 'invalid_type' }], code };
  }
  if (status === 500) return { detail: 'Internal server error. Quote request id req_4Xb2kQ9tZr8LmN3pWc7Y when reporting it.', code };
  const sentence = description.split(/;|\(`/)[0]!.replaceAll('`', '').trim();
  return { detail: sentence.charAt(0).toUpperCase() + sentence.slice(1), code };
}

interface MediaType {
  schema?: JSONSchema7;
  example?: unknown;
}
interface Operation {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

/**
 * Gives every request body and JSON response of the document an example, made from its schema
 * (with the `example`s its fields declare) where the route gave none: every route has one by
 * construction, and it can never describe a field the schema does not have.
 */
export function addExamples(document: object): void {
  const { paths } = document as { paths?: Record<string, Record<string, Operation>> };
  // A request example holds only what is required: what "Try it out" sends as it is, with no optional field to undo.
  const fill = (media: MediaType | undefined, options: { skipNonRequired: boolean }) => {
    if (!media?.schema || media.example !== undefined) return;
    media.example = sample(media.schema, { ...options, quiet: true, enablePatterns: true }, document);
  };
  for (const methods of Object.values(paths ?? {})) {
    for (const op of Object.values(methods)) {
      // A request body has one media type: JSON, or text (a zone file) whose schema names its example.
      fill(Object.values(op.requestBody?.content ?? {})[0], { skipNonRequired: true });
      for (const response of Object.values(op.responses ?? {})) fill(response.content?.['application/json'], { skipNonRequired: false });
    }
  }
}
