import type { Command } from '@commander-js/extra-typings';
import { contextOf } from '../context.js';
import { CliError } from '../errors.js';
import { table } from '../io.js';

export function orgCommands(program: Command): void {
  const orgs = program.command('orgs').description('your organisations, and the default one commands act in');

  orgs
    .command('list')
    .description('the organisations you belong to (* marks the default)')
    .action(async (_options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const me = await session.api.getMe();
      const chosen = (await session.store.settings()).default_orgs?.[session.apiUrl];
      io.result(
        me.orgs.map((org) => ({ ...org, default: org.id === chosen })),
        table(io.paint, ['', 'ORGANISATION', 'NAME', 'ROLE'], me.orgs.map((org) => [org.id === chosen ? '*' : '', org.id, org.name, org.role])),
      );
    });

  orgs
    .command('create')
    .description('create an organisation (you become its owner) and make it the default')
    .argument('<name>', 'its name')
    .action(async (name, _options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const org = await session.api.createOrganization({ body: { name } });
      await session.store.updateSettings((settings) => {
        settings.default_orgs = { ...settings.default_orgs, [session.apiUrl]: org.id };
      });
      io.result(org, [`Created ${org.name} (${org.id}); commands now act in it.`]);
    });

  orgs
    .command('use')
    .description('make an organisation the default for commands without --org')
    .argument('<org>', 'its id (org_…)')
    .action(async (orgId, _options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const me = await session.api.getMe();
      const org = me.orgs.find((candidate) => candidate.id === orgId);
      if (!org) throw new CliError(`You are not a member of ${orgId}; yours: ${me.orgs.map((o) => o.id).join(', ') || 'none'}`, 'notFound', 'NOT_ORG_MEMBER');
      await session.store.updateSettings((settings) => {
        settings.default_orgs = { ...settings.default_orgs, [session.apiUrl]: org.id };
      });
      io.result(org, [`Commands now act in ${org.name} (${org.id}).`]);
    });
}
