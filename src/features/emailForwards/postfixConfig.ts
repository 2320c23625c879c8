/**
 * The Postfix instance that forwards customers' mail (docs/operations.md, E-mail forwarding): its
 * main.cf, master.cf and lookup tables, written for one mode's aliases. Development and the tests
 * start one on loopback (scripts/lib/mailForwardingServer.ts); a deployment writes the same files
 * with its own ports and database role.
 *
 * What keeps it from being an open relay: no client is trusted (no `permit_mynetworks`), so a
 * recipient is accepted only at a forwarding domain with an alias for it (or a catch-all), or as a
 * well-formed SRS address of ours (a bounce on its way back); everything else is 550 at RCPT.
 * Percent hacks, bang paths and source routes are never taken as routing.
 */

export interface PostfixConfigProps {
  /** Config, queue, data and log directories all live under it. */
  dir: string;
  /** The name the server greets with and signs SRS addresses with. */
  hostname: string;
  /** Where it receives mail (loopback in development and tests). */
  listen: { host: string; port: number };
  /** `false`: the test-mode aliases, delivered only to `relay`. */
  livemode: boolean;
  /** The read-only role's connection (`email_forward_reader`, migrations/1765700000000_email_forwards.sql). */
  database: { host: string; port: number; user: string; password: string; dbname: string };
  /** postsrsd's forward and reverse lookup ports (127.0.0.1). */
  srs: { forwardPort: number; reversePort: number };
  /** The policy service (mailPolicy.ts) that counts messages per domain. */
  policyPort: number;
  /** Every forwarded message goes here and nowhere else; required for test mode (SMTP_URL or the development mailbox). */
  relay: { host: string; port: number } | undefined;
}

export const POSTFIX_FILES = {
  mainCf: 'main.cf',
  masterCf: 'master.cf',
  domains: 'forward_domains.pgsql',
  aliases: 'forward_aliases.pgsql',
  srsRecipients: 'srs_recipients.regexp',
  addressLiterals: 'address_literals.regexp',
  noLocalRecipients: 'no_local_recipients.regexp',
  log: 'postfix.log',
} as const;

/** postsrsd's addresses: `SRS0=hash=tt=domain=local@<srs domain>` and `SRS1` for a forward of a forward. */
export function srsRecipientPattern(hostname: string): string {
  return `/^SRS[01][=+-][^@]+@${hostname.replace(/\./g, '\\.')}$/ OK`;
}

function pgsqlTable(props: PostfixConfigProps, query: string): string {
  const db = props.database;
  return [
    `hosts = ${db.host}:${db.port}`,
    `user = ${db.user}`,
    `password = ${db.password}`,
    `dbname = ${db.dbname}`,
    `query = ${query}`,
    '',
  ].join('\n');
}

/** The lookup tables' files, by name: the domains forwarded, their aliases, the SRS addresses accepted back. */
export function lookupTables(props: PostfixConfigProps): Record<string, string> {
  const mode = props.livemode ? 'true' : 'false';
  return {
    // %s is the whole key Postfix looks up, escaped by Postfix for the query (pgsql_table(5)).
    [POSTFIX_FILES.domains]: pgsqlTable(props, `SELECT domain FROM email_forward_domains WHERE domain = '%s' AND livemode = ${mode}`),
    // Keys are `local@domain` and then `@domain` (a catch-all), as virtual(5) looks them up.
    [POSTFIX_FILES.aliases]: pgsqlTable(props, `SELECT destinations FROM email_forward_aliases WHERE address = '%s' AND livemode = ${mode}`),
    [POSTFIX_FILES.srsRecipients]: `${srsRecipientPattern(props.hostname)}\n`,
    // `user@[address]` names this host itself when the address is its own: never accepted.
    [POSTFIX_FILES.addressLiterals]: '/@\\[.*\\]$/ REJECT 5.1.2 Address literals are not accepted\n',
    // Nothing is delivered here: every local address (`user@localhost`) is unknown.
    [POSTFIX_FILES.noLocalRecipients]: '',
  };
}

export function mainCf(props: PostfixConfigProps): string {
  const etc = (file: string) => `${props.dir}/etc/${file}`;
  if (!props.livemode && !props.relay) throw new Error('a test-mode mail forwarder needs a relay (SMTP_URL or the development mailbox)');
  const settings: Record<string, string | number> = {
    compatibility_level: '3.6',
    queue_directory: `${props.dir}/queue`,
    data_directory: `${props.dir}/data`,
    // Postfix's own log goes to the master's standard output (`postfix start-fg`), which the starter keeps.
    maillog_file: '/dev/stdout',
    myhostname: props.hostname,
    myorigin: '$myhostname',
    mydestination: '',
    mynetworks: '127.0.0.1/32',
    inet_interfaces: props.listen.host,
    inet_protocols: 'ipv4',
    smtpd_banner: '$myhostname ESMTP',
    biff: 'no',
    append_dot_mydomain: 'no',
    alias_maps: '',
    alias_database: '',
    local_recipient_maps: `regexp:${etc(POSTFIX_FILES.noLocalRecipients)}`,
    // Addresses are never routed by what is inside them (the open-relay probes).
    allow_percent_hack: 'no',
    swap_bangpath: 'no',
    allow_untrusted_routing: 'no',
    strict_rfc821_envelopes: 'yes',
    smtpd_helo_required: 'yes',
    // Nobody is trusted to relay: no permit_mynetworks, no SASL.
    smtpd_relay_restrictions: `reject_non_fqdn_recipient, check_recipient_access regexp:${etc(POSTFIX_FILES.addressLiterals)}, reject_unauth_destination`,
    smtpd_recipient_restrictions: `reject_unlisted_recipient, check_policy_service { inet:127.0.0.1:${props.policyPort}, default_action=DEFER_IF_PERMIT }`,
    relay_domains_reject_code: 550,
    unknown_virtual_alias_reject_code: 550,
    unknown_relay_recipient_reject_code: 550,
    // Addresses are checked at RCPT, so nothing accepted bounces for an unknown user (no backscatter).
    virtual_alias_domains: `pgsql:${etc(POSTFIX_FILES.domains)}`,
    virtual_alias_maps: `pgsql:${etc(POSTFIX_FILES.aliases)}`,
    // Bounces come back to our SRS addresses, and only well-formed ones are accepted.
    relay_domains: props.hostname,
    relay_recipient_maps: `regexp:${etc(POSTFIX_FILES.srsRecipients)}`,
    // postsrsd: the envelope sender of what is forwarded, and the way back for what bounces.
    sender_canonical_maps: `tcp:127.0.0.1:${props.srs.forwardPort}`,
    sender_canonical_classes: 'envelope_sender',
    recipient_canonical_maps: `tcp:127.0.0.1:${props.srs.reversePort}`,
    recipient_canonical_classes: 'envelope_recipient,header_recipient',
    // Headers and body are passed on byte for byte: DKIM signatures keep verifying.
    smtputf8_enable: 'no',
    disable_mime_output_conversion: 'yes',
    message_size_limit: 26_214_400,
    maximal_queue_lifetime: '5d',
    bounce_queue_lifetime: '5d',
  };
  if (props.relay) {
    settings.relayhost = `[${props.relay.host}]:${props.relay.port}`;
    settings.smtp_dns_support_level = 'disabled';
    // Test mode: a recipient the relay does not take is never tried anywhere else.
    settings.smtp_fallback_relay = '';
  }
  return Object.entries(settings).map(([key, value]) => `${key} = ${value}`).join('\n') + '\n';
}

/** Debian's master.cf services, without chroot (the queue is ours) and with smtpd on our port only. */
export function masterCf(props: PostfixConfigProps): string {
  const services = [
    `${props.listen.host}:${props.listen.port} inet n - n - - smtpd`,
    'pickup unix n - n 60 1 pickup',
    'cleanup unix n - n - 0 cleanup',
    'qmgr unix n - n 300 1 qmgr',
    'rewrite unix - - n - - trivial-rewrite',
    'bounce unix - - n - 0 bounce',
    'defer unix - - n - 0 bounce',
    'trace unix - - n - 0 bounce',
    'verify unix - - n - 1 verify',
    'flush unix n - n 1000? 0 flush',
    'proxymap unix - - n - - proxymap',
    'smtp unix - - n - - smtp',
    'relay unix - - n - - smtp',
    'showq unix n - n - - showq',
    'error unix - - n - - error',
    'retry unix - - n - - error',
    'discard unix - - n - - discard',
    'anvil unix - - n - 1 anvil',
    'scache unix - - n - 1 scache',
    'postlog unix-dgram n - n - 1 postlogd',
  ];
  return services.join('\n') + '\n';
}
