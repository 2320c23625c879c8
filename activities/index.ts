import type { Config } from '../src/config.js';
import type { Db } from '../src/db/pool.js';
import type { Logger } from '../src/logger.js';

/** What activities may touch. Narrow on purpose: each activity takes only what it uses. */
export interface ActivityDeps {
  config: Config;
  db: Db;
  logger: Logger;
}

/**
 * Builds the activity implementations around their dependencies (the samples'
 * `activities-dependency-injection` pattern). Workflows see only `typeof` this object's type.
 */
export function createActivities(deps: ActivityDeps) {
  void deps;
  return {};
}

export type Activities = ReturnType<typeof createActivities>;
