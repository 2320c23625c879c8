/**
 * What `npm run dev` runs with unless the environment says otherwise: development, and test-mode
 * webhook endpoints allowed to be http on loopback (a receiver on this machine needs no tunnel).
 * Production keeps nothing of it (the configuration refuses the allowance there).
 */
export function devEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const defaults = env.NODE_ENV === 'production' ? {} : { WEBHOOK_TEST_LOOPBACK: 'true' };
  return { NODE_ENV: 'development', ...defaults, ...env };
}
