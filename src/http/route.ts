import type { z } from 'zod';
import type { AppContext } from './context.js';
import type { Scope } from '../auth/scopes.js';
import type { OrgRole } from '../auth/memberships.js';
import type { RateLimitGroup } from '../rateLimit/groups.js';
import type { Principal } from '../auth/principal.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The parts of a request a route may declare a schema for; `loc[0]` in field errors names them. */
export interface RequestSchemas {
  path?: z.ZodObject;
  query?: z.ZodObject;
  header?: z.ZodObject;
  body?: z.ZodType;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The request's parts as the route's schemas parsed them. */
export interface ParsedRequest<R extends RequestSchemas> {
  path: Parsed<R['path']>;
  query: Parsed<R['query']>;
  header: Parsed<R['header']>;
  body: Parsed<R['body']>;
}

export interface RouteInput<R extends RequestSchemas> extends ParsedRequest<R> {
  /** The request's id (`X-Request-Id`), for audit events and logs. */
  requestId: string;
}

/** Who may call a route: `public` (no token), `any` (any valid token), or the scope a token needs. */
export type RouteScope = Scope | 'any' | 'public';

/** What a handler receives: the parsed request, and on every route with a token the caller. */
export type HandlerInput<R extends RequestSchemas, S extends RouteScope> = RouteInput<R> &
  (S extends 'public' ? unknown : { principal: Principal });

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
export interface RouteSpec<R extends RequestSchemas = RequestSchemas, S extends RouteScope = RouteScope> {
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
  scope: S;
  /** The rate-limit pool it counts against; default `read` for GET, `write` otherwise. */
  rateLimitGroup?: RateLimitGroup;
  /**
   * It reserves a price from the balance (register, transfer, renew): the reference adds 402 for a
   * short balance or a spending limit and 409 `PRICE_EXCEEDS_MAX`.
   */
  charges?: boolean;
  /**
   * It reads or changes DNS records only, and checks each record it changes against the key's
   * `allowed_records` (the record service does): a key restricted to some records may call it, on
   * the domains they name. Every other route refuses such a key (403 `RECORD_NOT_ALLOWED`).
   */
  actsOnRecords?: boolean;
  /**
   * It answers only what the caller's key may read, filtering by the key's `allowed_domains` and
   * `allowed_records` itself (the events): a key restricted to some records may call it too.
   */
  filtersByKeyRestrictions?: boolean;
  /**
   * Every effect it has commits in one transaction through answerInTransaction, and nothing outside
   * that transaction changes (no registrar, DNS or payment call): its Idempotency-Key is claimed in
   * that transaction instead of by a statement of its own first (idempotencyAtCommit.ts).
   */
  answersInTransaction?: boolean;
  /**
   * Also accepts HTTP Basic whose password is an API key (any user name), for clients that can send
   * nothing else (lego's `httpreq`); Bearer works as everywhere.
   */
  basicAuth?: boolean;
  /** Organisation roles allowed, for org paths reserved to some roles. */
  roles?: readonly OrgRole[];
  request?: R;
  /**
   * The body is text rather than JSON (a zone file): the media types accepted, the first being the
   * one the reference names, and the size limit for this route (JSON bodies: 1 MB).
   */
  textBody?: { contentTypes: readonly [string, ...string[]]; limitBytes: number };
  /**
   * For public routes that authenticate the request themselves (a webhook signature over the raw
   * body): runs once the body is read and before validation, so a forged request is refused before
   * anything looks at its content.
   */
  verifyRequest?: (ctx: AppContext) => Promise<void>;
  /**
   * For public routes whose request carries a credential in its headers (an ACME-DNS update): runs
   * before the body is read, so a request it refuses (a wrong credential, a spent budget) never has
   * its body read at all.
   */
  verifyHeaders?: (ctx: AppContext) => Promise<void>;
  /**
   * A slot the request holds from before its body is read until it is answered (a zone file import:
   * a few at once per organisation, so one tenant's large bodies never fill a process's memory); the
   * function takes it (or throws the refusal) and returns what gives it back.
   */
  holdsSlot?: (ctx: AppContext) => () => void;
  /**
   * With `verifyHeaders` checking a credential: the route counts its own requests, failures per client
   * address (`auth_failure`) and verified ones per credential, so the per-address `public` pool is not
   * taken first (docs/api-guide.md, Rate limits).
   */
  countsOwnRequests?: boolean;
  /** The most a JSON body may hold when a route needs far less than the 1 MB of the others (413 past it, counted while it is read). */
  bodyLimitBytes?: number;
  /** Successful responses by status; the standard error responses are added automatically. */
  responses: Record<number, ResponseSpec>;
  /**
   * Error answers particular to this route, by status: when they happen and their `code`s. The
   * statuses its declaration implies (token, scope, path look-ups, idempotency, charges, schemas)
   * are added by src/openapi/statuses.ts; a 404 given here replaces the one derived from the path.
   */
  errors?: Record<number, string>;
  /** Left out of the OpenAPI document (development-only helpers). */
  hidden?: boolean;
  handler: (ctx: AppContext, input: HandlerInput<R, S>) => Promise<void> | void;
}

/**
 * Identity function that lets TypeScript infer the input types of a route's handler. The router
 * builds the input the declaration promises (`principal` is set on every route that is not public).
 */
export function defineRoute<R extends RequestSchemas, S extends RouteScope>(spec: RouteSpec<R, S>): RouteSpec {
  return spec;
}

export function rateLimitGroupOf(route: Pick<RouteSpec, 'method' | 'rateLimitGroup'>): RateLimitGroup {
  return route.rateLimitGroup ?? (route.method === 'get' ? 'read' : 'write');
}

/** `/orgs/{org_oid}` → `/orgs/:org_oid` */
export function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
