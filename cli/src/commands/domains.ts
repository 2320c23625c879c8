import type { Command, OptionValues } from '@commander-js/extra-typings';
import { Option } from '@commander-js/extra-typings';
import { isDryRun, type DryRun } from '../../../client/src/index.js';
import { contextOf, type Context } from '../context.js';
import type { Session } from '../session.js';
import { CliError } from '../errors.js';
import { list, money, onOff, when, wholeNumber } from '../format.js';
import { table } from '../io.js';
import { followOperation, timeoutOption, waitOption } from './operations.js';

/** What every paid command takes: a price check, a ceiling, a key of the caller's for retries, and waiting. */
function paidOptions<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(command: Command<Args, Opts, Globals>) {
  return command
    .addOption(new Option('--dry-run', 'check everything and show the price and the balance after; charge and change nothing'))
    .addOption(new Option('--max-price <cents>', 'refuse if it would cost more (integer minor units: 1500 is $15.00)').argParser(wholeNumber('--max-price')))
    .addOption(new Option('--idempotency-key <key>', 'send this Idempotency-Key, so running the command again (a retried CI job) never charges twice'))
    .addOption(waitOption())
    .addOption(timeoutOption());
}

function showDryRun(ctx: Context, answer: DryRun, what: string): void {
  ctx.io.result(answer, [`${what} would charge ${money(answer.price.amount, answer.price.currency)}; the balance after: ${money(answer.available_after)}. Nothing was charged.`]);
}

/** The registrant: `--contact`, or the organisation's only contact in this mode. */
async function registrant(session: Session, org: string, given: string | undefined): Promise<string> {
  if (given) return given;
  const contacts = await session.api.listContacts({ path: { org_oid: org }, query: { limit: 2 } });
  if (contacts.data.length === 1) return contacts.data[0]!.id;
  throw new CliError(
    contacts.data.length === 0
      ? `The organisation has no ${session.mode}-mode contact yet: create one with \`domain-service contacts create\``
      : 'Say who registers it: --contact ct_… (`domain-service contacts list`)',
    'usage',
    'CONTACT_NEEDED',
  );
}

const headers = (options: { dryRun?: boolean | undefined }) => (options.dryRun ? { 'dry-run': 'true' as const } : {});
const call = (options: { idempotencyKey?: string | undefined }) => (options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {});

function domainLines(domain: Awaited<ReturnType<Session['api']['getDomain']>>): string[] {
  return [
    `${domain.name}  ${domain.status}${domain.livemode ? '' : '  (test mode)'}`,
    `expires      ${when(domain.expires_at)}`,
    `auto-renew   ${domain.auto_renew ? 'on' : 'off'}`,
    `locked       ${domain.locked ? 'yes' : 'no'}`,
    `whois privacy ${domain.whois_privacy ? 'on' : 'off'}`,
    `nameservers  ${domain.nameservers.join(', ') || '—'}`,
    `registrant   ${domain.registrant_contact_id}`,
  ];
}

export function domainCommands(program: Command): void {
  const domains = program.command('domains').description('check, register, renew and transfer domains, and change their settings');

  domains
    .command('check')
    .description('whether names are available, and at what price')
    .argument('<names...>', 'one name or several (several go as one bulk check)')
    .action(async (names, _options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const results =
        names.length === 1
          ? [await session.api.checkAvailability({ query: { name: names[0]! } })]
          : (await session.api.checkAvailabilityBulk({ body: { names } })).results;
      io.result(
        names.length === 1 ? results[0] : results,
        table(
          io.paint,
          ['NAME', 'AVAILABLE', 'PRICE', 'NOTE'],
          results.map((r) =>
            'error' in r
              ? [r.name, '?', '', `${r.error.code}: ${r.error.detail}`]
              : [r.name, r.available ? io.paint.green('yes') : io.paint.red('no'), r.price ? money(r.price.amount, r.price.currency) : '', r.premium ? 'premium' : (r.reason ?? '')],
          ),
        ),
      );
    });

  domains
    .command('list')
    .description("the organisation's domains")
    .addOption(new Option('--limit <n>', 'how many at most').default(100).argParser(wholeNumber('--limit', 1)))
    .action(async (options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const org = await session.org();
      const found = [];
      let cursor: string | undefined;
      do {
        const page = await session.api.listDomains({ path: { org_oid: org }, query: { limit: Math.min(100, options.limit - found.length), ...(cursor ? { cursor } : {}) } });
        found.push(...page.data);
        cursor = page.next_cursor ?? undefined;
      } while (cursor && found.length < options.limit);
      io.result(found, table(io.paint, ['DOMAIN', 'STATUS', 'EXPIRES', 'AUTO-RENEW'], found.map((d) => [d.name, d.status, when(d.expires_at), d.auto_renew ? 'on' : 'off'])));
    });

  domains
    .command('show')
    .description('one domain')
    .argument('<domain>', 'e.g. example.com')
    .action(async (name, _options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const domain = await session.api.getDomain({ path: { org_oid: await session.org(), domain: name } });
      io.result(domain, domainLines(domain));
    });

  paidOptions(
    domains
      .command('register')
      .description('register a domain (charged to the balance); --wait to see it through')
      .argument('<domain>', 'e.g. example.com')
      .addOption(new Option('--years <n>', 'how many years').default(1).argParser(wholeNumber('--years', 1)))
      .addOption(new Option('--contact <id>', "the registrant (ct_…); default: the organisation's only contact"))
      .addOption(new Option('--nameservers <hosts>', 'comma-separated name servers').argParser(list))
      .addOption(new Option('--auto-renew', 'renew it from the balance before it expires'))
      .addOption(new Option('--whois-privacy', 'hide the registrant in public WHOIS')),
  ).action(async (name, options, command) => {
    const ctx = contextOf(command);
    const session = await ctx.session();
    const org = await session.org();
    const body = {
      name,
      years: options.years,
      registrant_contact_id: await registrant(session, org, options.contact),
      ...(options.nameservers ? { nameservers: options.nameservers } : {}),
      ...(options.autoRenew ? { auto_renew: true } : {}),
      ...(options.whoisPrivacy ? { whois_privacy: true } : {}),
      ...(options.maxPrice !== undefined ? { max_price: options.maxPrice } : {}),
    };
    const answer = await session.api.registerDomain({ path: { org_oid: org }, header: headers(options), body }, call(options));
    if (isDryRun(answer)) return showDryRun(ctx, answer, `Registering ${name} for ${options.years} year${options.years === 1 ? '' : 's'}`);
    await followOperation(ctx, org, answer, options);
  });

  paidOptions(
    domains
      .command('renew')
      .description('renew a domain (charged to the balance)')
      .argument('<domain>', 'e.g. example.com')
      .addOption(new Option('--years <n>', 'how many years').default(1).argParser(wholeNumber('--years', 1))),
  ).action(async (name, options, command) => {
    const ctx = contextOf(command);
    const session = await ctx.session();
    const org = await session.org();
    const body = { years: options.years, ...(options.maxPrice !== undefined ? { max_price: options.maxPrice } : {}) };
    const answer = await session.api.renewDomain({ path: { org_oid: org, domain: name }, header: headers(options), body }, call(options));
    if (isDryRun(answer)) return showDryRun(ctx, answer, `Renewing ${name}`);
    if ('charged' in answer) {
      ctx.io.result(answer, [`${answer.domain} renewed until ${when(answer.expires_at)} for ${money(answer.charged.amount, answer.charged.currency)} (${answer.operation_id})`]);
      return;
    }
    await followOperation(ctx, org, answer, options);
  });

  paidOptions(
    domains
      .command('transfer')
      .description('transfer a domain in from another registrar (charged to the balance)')
      .argument('<domain>', 'e.g. example.org')
      .requiredOption('--auth-code <code>', "the auth code from the domain's current registrar")
      .addOption(new Option('--contact <id>', "the registrant (ct_…); default: the organisation's only contact"))
      .addOption(new Option('--whois-privacy', 'hide the registrant in public WHOIS')),
  ).action(async (name, options, command) => {
    const ctx = contextOf(command);
    const session = await ctx.session();
    const org = await session.org();
    const body = {
      name,
      auth_code: options.authCode,
      registrant_contact_id: await registrant(session, org, options.contact),
      ...(options.whoisPrivacy ? { whois_privacy: true } : {}),
      ...(options.maxPrice !== undefined ? { max_price: options.maxPrice } : {}),
    };
    const answer = await session.api.transferDomain({ path: { org_oid: org }, header: headers(options), body }, call(options));
    if (isDryRun(answer)) return showDryRun(ctx, answer, `Transferring ${name}`);
    await followOperation(ctx, org, answer, options);
  });

  domains
    .command('settings')
    .description("show a domain's settings, or change them (only what is given changes)")
    .argument('<domain>', 'e.g. example.com')
    .addOption(new Option('--auto-renew <on|off>', 'renew from the balance before it expires').argParser(onOff('--auto-renew')))
    .addOption(new Option('--lock <on|off>', 'the registrar lock against transfers').argParser(onOff('--lock')))
    .addOption(new Option('--whois-privacy <on|off>', 'hide the registrant in public WHOIS').argParser(onOff('--whois-privacy')))
    .addOption(new Option('--nameservers <hosts>', 'comma-separated name servers').argParser(list))
    .action(async (name, options, command) => {
      const { io, session: open } = contextOf(command);
      const session = await open();
      const path = { org_oid: await session.org(), domain: name };
      const change = {
        ...(options.autoRenew !== undefined ? { auto_renew: options.autoRenew } : {}),
        ...(options.lock !== undefined ? { locked: options.lock } : {}),
        ...(options.whoisPrivacy !== undefined ? { whois_privacy: options.whoisPrivacy } : {}),
        ...(options.nameservers ? { nameservers: options.nameservers } : {}),
      };
      const current = await session.api.getDomain({ path });
      if (Object.keys(change).length === 0) {
        io.result(current, domainLines(current));
        return;
      }
      // Changed by someone else since it was read: VERSION_MISMATCH, and nothing is changed.
      const changed = await session.api.updateDomain({ path, header: { 'if-match': `"${current.version}"` }, body: change });
      io.result(changed, domainLines(changed));
    });
}
