import { createRequire } from 'node:module';
import { Command, Option } from '@commander-js/extra-typings';
import { exitCodesHelp } from './exitCodes.js';
import { authCommands } from './commands/auth.js';
import { orgCommands } from './commands/orgs.js';
import { domainCommands } from './commands/domains.js';
import { operationCommands } from './commands/operations.js';
import { recordCommands } from './commands/records.js';
import { zoneCommands } from './commands/zone.js';
import { keyCommands } from './commands/keys.js';
import { eventCommands } from './commands/events.js';
import { webhookCommands } from './commands/webhooks.js';
import { billingCommands } from './commands/billing.js';
import { contactCommands } from './commands/contacts.js';
import { mailForwardCommands } from './commands/mailForwards.js';
import { completionCommand } from './commands/completion.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const ENVIRONMENT = `Environment:
  DOMAIN_SERVICE_API_KEY  an API key to act with (svc_live_… or svc_test_…) instead of a stored sign-in
  DOMAIN_SERVICE_API_URL  the API's address (as --api-url)
  DOMAIN_SERVICE_ORG      the organisation (as --org)
  XDG_CONFIG_HOME         where config.json and credentials.json are kept (default ~/.config), in domain-service/
  NO_COLOR                plain text even on a terminal`;

/**
 * Every command, its arguments and options, in one tree: it parses the command line and it is what
 * `--help`, the shell completions (src/completions.ts) and docs/cli.md's command list are made from.
 */
export function buildProgram(props: { json: boolean } = { json: false }): Command {
  const program = new Command('domain-service')
    // Set before the commands are added, which take these settings from their parent.
    .exitOverride()
    .configureOutput({
      // Usage errors in the shape of every other error: one line with a code (JSON with --json).
      outputError: (text, write) => {
        const detail = text.replace(/^error: /, '').trim();
        write(props.json ? `${JSON.stringify({ error: { code: 'USAGE', detail } })}\n` : `error USAGE: ${detail.replace(/\n/g, ' ')}\n`);
      },
    })
    .description('Domain names, DNS and webhooks of the domain-service API, for scripts and people.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .addOption(new Option('--api-url <url>', "the API's address (default: the last login's, else http://127.0.0.1:8080)"))
    .addOption(new Option('--org <id>', 'the organisation to act in (default: `orgs use`, or your only one)'))
    .addOption(new Option('--test', 'act in test mode: synthetic registrar, free top-ups, no money moves'))
    .addOption(new Option('--json', 'print the result as JSON (and errors, on stderr)'))
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .addHelpText('after', `\n${ENVIRONMENT}\n\n${exitCodesHelp()}\n`)
    .showSuggestionAfterError(true);
  for (const add of [authCommands, orgCommands, domainCommands, operationCommands, recordCommands, zoneCommands, keyCommands, eventCommands, webhookCommands, billingCommands, contactCommands, mailForwardCommands]) {
    add(program);
  }
  program.addCommand(completionCommand(program));
  return program;
}
