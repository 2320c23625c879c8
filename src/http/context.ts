import type { RouterContext } from '@koa/router';
import type { Logger } from '../logger.js';

/** What every request carries through the middleware chain. Later layers add to it. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** The request body exactly as received, for routes that read a body. */
  rawBody?: Buffer;
  /** The parsed JSON body, for routes that read a body. */
  body?: unknown;
}

export type AppContext = RouterContext<AppState>;
