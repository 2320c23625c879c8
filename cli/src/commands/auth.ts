import type { Command } from '@commander-js/extra-typings';
import { createClient } from '../../../client/src/index.js';
import { contextOf } from '../context.js';
import { deviceSignIn, revokeLogin } from '../signIn.js';
import { table } from '../io.js';

export function authCommands(program: Command): void {
  program
    .command('login')
    .description('sign in through your browser (the OAuth device flow); scripts set DOMAIN_SERVICE_API_KEY instead')
    .action(async (_options, command) => {
      const { io, session: open, signal } = contextOf(command);
      const session = await open();
      if (session.credentialKind === 'api_key') {
        const me = await session.api.getMe();
        io.result({ email: me.email, auth: me.auth }, [`Using the API key in DOMAIN_SERVICE_API_KEY (${me.auth.mode} mode) as ${me.email ?? me.id}; nothing to store`]);
        return;
      }
      const anonymous = createClient({ baseUrl: session.apiUrl });
      const login = await deviceSignIn(
        anonymous,
        (code) => {
          const p = io.errPaint;
          io.notice(`To sign in to ${session.apiUrl}, open ${p.bold(code.verificationUri)}`);
          io.notice(`and enter the code ${p.bold(p.yellow(code.userCode))} (it expires in ${Math.round(code.expiresInSeconds / 60)} minutes).`);
          io.hint('Waiting for the browser…');
        },
        signal,
      );
      await session.store.saveLogin(session.apiUrl, login);
      await session.store.updateSettings((settings) => {
        settings.api_url = session.apiUrl;
      });
      const me = await createClient({ baseUrl: session.apiUrl, token: login.access_token }).getMe();
      io.result({ email: me.email, name: me.name, api_url: session.apiUrl, orgs: me.orgs }, [
        `Signed in to ${session.apiUrl} as ${me.email ?? me.id}${me.orgs.length ? ` (${me.orgs.length} organisation${me.orgs.length === 1 ? '' : 's'})` : ''}.`,
        ...(me.orgs.length === 0 ? ['Next: create an organisation with `domain-service orgs create NAME`.'] : []),
      ]);
    });

  program
    .command('logout')
    .description('forget the stored sign-in to this API (and tell the identity provider)')
    .action(async (_options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const login = await session.store.login(session.apiUrl);
      const revoked = login ? await revokeLogin(login) : false;
      const forgotten = await session.store.forgetLogin(session.apiUrl);
      io.result({ api_url: session.apiUrl, signed_out: forgotten, revoked }, [forgotten ? `Signed out of ${session.apiUrl}.` : `Not signed in to ${session.apiUrl}; nothing to do.`]);
    });

  program
    .command('whoami')
    .description('who the command line acts as, in which mode, and your organisations')
    .action(async (_options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const me = await session.api.getMe();
      const defaultOrg = (await session.store.settings()).default_orgs?.[session.apiUrl];
      const how = me.auth.type === 'api_key' ? `API key ${me.auth.key_id ?? ''} (DOMAIN_SERVICE_API_KEY)` : 'a sign-in (session)';
      io.result({ ...me, api_url: session.apiUrl, mode: session.mode, default_org: defaultOrg ?? null }, () => [
        `${me.name ?? ''} <${me.email ?? me.id}> at ${session.apiUrl}`.trim(),
        `Acting through ${how}, in ${session.mode} mode.`,
        ...(me.orgs.length
          ? ['', ...table(io.paint, ['', 'ORGANISATION', 'NAME', 'ROLE'], me.orgs.map((org) => [org.id === defaultOrg ? '*' : '', org.id, org.name, org.role]))]
          : ['No organisations yet.']),
      ]);
    });
}
