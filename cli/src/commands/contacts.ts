import type { Command } from '@commander-js/extra-typings';
import { Option } from '@commander-js/extra-typings';
import { contextOf } from '../context.js';
import { table } from '../io.js';

export function contactCommands(program: Command): void {
  const contacts = program.command('contacts').description('registrant contacts (per mode)');

  contacts
    .command('list')
    .description("the organisation's contacts in this mode")
    .action(async (_options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const page = await session.api.listContacts({ path: { org_oid: await session.org() }, query: { limit: 100 } });
      io.result(page.data, table(io.paint, ['ID', 'NAME', 'E-MAIL', 'COUNTRY'], page.data.map((c) => [c.id, `${c.first_name} ${c.last_name}`, c.email, c.country])));
    });

  contacts
    .command('create')
    .description('add a contact that can register domains')
    .requiredOption('--first-name <name>', 'given name')
    .requiredOption('--last-name <name>', 'family name')
    .requiredOption('--email <address>', 'e-mail address')
    .requiredOption('--phone <number>', 'E.164, e.g. +442071838750')
    .requiredOption('--address1 <line>', 'street address')
    .requiredOption('--city <city>', 'city')
    .requiredOption('--postal-code <code>', 'postal code')
    .requiredOption('--country <code>', 'ISO 3166-1 alpha-2, e.g. GB')
    .addOption(new Option('--organization <name>', 'company'))
    .addOption(new Option('--address2 <line>', 'second address line'))
    .addOption(new Option('--state <state>', 'state or region'))
    .action(async (options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const body = {
        first_name: options.firstName,
        last_name: options.lastName,
        email: options.email,
        phone: options.phone,
        address1: options.address1,
        city: options.city,
        postal_code: options.postalCode,
        country: options.country,
        ...(options.organization ? { organization: options.organization } : {}),
        ...(options.address2 ? { address2: options.address2 } : {}),
        ...(options.state ? { state: options.state } : {}),
      };
      const contact = await session.api.createContact({ path: { org_oid: await session.org() }, body });
      io.result(contact, [`Created ${contact.id} (${contact.first_name} ${contact.last_name}).`]);
    });
}
