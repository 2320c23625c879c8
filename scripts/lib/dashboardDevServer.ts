import path from 'node:path';
import { createServer } from 'vite';
import { PortTakenError } from '../../src/http/portTaken.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
/** What the dashboard's server side answers (src/dashboard/): sign-in, session, sign-out, the API proxy. */
const SERVER_PATHS = '^/dashboard/(api|login|callback|session|logout)([/?]|$)';

export interface DashboardDevServer {
  /** The dashboard's address, e.g. http://127.0.0.1:5173/dashboard/. */
  url: string;
  /** The origins a browser opens it at, for DASHBOARD_ORIGINS. */
  origins: string[];
  close(): Promise<void>;
}

/**
 * `npm run dev`'s front end: Vite's dev server with hot reload for dashboard/, passing the
 * dashboard's server paths and the development OpenID provider through to the api. The Host header
 * is kept, so the api sees the Vite origin, which it allows through DASHBOARD_ORIGINS (its sign-in
 * callback and its CSRF `Origin` check).
 */
export async function startDashboardDevServer(props: { apiUrl: string; port: number }): Promise<DashboardDevServer> {
  const target = props.apiUrl;
  const server = await createServer({
    configFile: path.join(REPO_ROOT, 'dashboard', 'vite.config.ts'),
    server: {
      host: '127.0.0.1',
      port: props.port,
      strictPort: true,
      proxy: { [SERVER_PATHS]: { target }, '/dev/oidc': { target } },
    },
  });
  await server.listen().catch(async (err: unknown) => {
    await server.close();
    // Vite's strictPort refusal is a plain Error with this message; a bind failure carries the code.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || /^Port \d+ is already in use/.test((err as Error).message)) throw new PortTakenError('127.0.0.1', props.port, 'DASHBOARD_DEV_PORT');
    throw err;
  });
  const origin = `http://127.0.0.1:${props.port}`;
  return {
    url: `${origin}/dashboard/`,
    origins: [origin, `http://localhost:${props.port}`],
    close: () => server.close(),
  };
}
