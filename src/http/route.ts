import type { z } from 'zod';
import type { AppContext } from './context.js';
import type { Scope } from '../auth/scopes.js';
import type { OrgRole } from '../db/repositories/memberships.js';
import type { RateLimitGroup } from '../rateLimit/groups.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The parts of a request a route may declare a schema for; `loc[0]` in field errors names them. */
export interface RequestSchemas {
  path?: z.ZodObject;
  query?: z.ZodObject;
  header?: z.ZodObject;
  body?: z.ZodType;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<R extends RequestSchemas> {
  path: Parsed<R['path']>;
  query: Parsed<R['query']>;
  header: Parsed<R['header']>;
  body: Parsed<R['body']>;
}

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Response body content type, when it is not JSON. */
  contentType?: string;
  headers?: z.ZodObject;
}

/**
 * One route: everything the router needs to serve it and everything the OpenAPI document
 * says about it come from this one object, so the reference cannot drift from the code.
 */
export interface RouteSpec<R extends RequestSchemas = RequestSchemas> {
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/api/v1/orgs/{org_oid}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /**
   * Who may call it: `public` (no token), `any` (any valid token), or the scope a token needs.
   * Paths under `/api/v1/orgs/{org_oid}` also need membership of that organisation.
   */
  scope: Scope | 'any' | 'public';
  /** The rate-limit pool it counts against; default `read` for GET, `write` otherwise. */
  rateLimitGroup?: RateLimitGroup;
  /** Organisation roles allowed, for org paths reserved to some roles. */
  roles?: readonly OrgRole[];
  request?: R;
  /**
   * For public routes that authenticate the request themselves (a webhook signature over the raw
   * body): runs once the body is read and before validation, so a forged request is refused before
   * anything looks at its content.
   */
  verifyRequest?: (ctx: AppContext) => Promise<void>;
  /** Successful responses by status; the standard error responses are added automatically. */
  responses: Record<number, ResponseSpec>;
  /** Error answers particular to this route, by status: when they happen and their `code`s. */
  errors?: Record<number, string>;
  /** Left out of the OpenAPI document (development-only helpers). */
  hidden?: boolean;
  handler: (ctx: AppContext, input: RouteInput<R>) => Promise<void> | void;
}

/** Identity function that lets TypeScript infer the input types of a route's handler. */
export function defineRoute<R extends RequestSchemas>(spec: RouteSpec<R>): RouteSpec {
  return spec;
}

export function rateLimitGroupOf(route: Pick<RouteSpec, 'method' | 'rateLimitGroup'>): RateLimitGroup {
  return route.rateLimitGroup ?? (route.method === 'get' ? 'read' : 'write');
}

/** `/orgs/{org_oid}` → `/orgs/:org_oid` */
export function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
