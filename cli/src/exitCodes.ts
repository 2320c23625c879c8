/**
 * How the command line ends, for scripts: one table, shown by `--help` and docs/cli.md. API errors map
 * by status; an operation waited on (`--wait`, `operations wait`) by how it ended.
 */
export const EXIT = {
  ok: { code: 0, meaning: 'Done; an operation waited on succeeded' },
  unexpected: { code: 1, meaning: 'Something unexpected: an answer that makes no sense, a bug' },
  usage: { code: 2, meaning: 'Usage: an unknown command, a missing or bad argument or option, a file that cannot be read' },
  unauthenticated: { code: 3, meaning: 'Not signed in, or the credential was refused (401): run `domain-service login` or set DOMAIN_SERVICE_API_KEY' },
  forbidden: { code: 4, meaning: 'Not allowed: a scope, role, organisation or key restriction (403)' },
  notFound: { code: 5, meaning: 'Not found (404)' },
  refused: { code: 6, meaning: 'Refused: the request is invalid or conflicts with the state (400, 402, 409, 422…)' },
  unavailable: { code: 7, meaning: 'Unavailable: rate-limited, or the API or a service behind it is down or unreachable (429, 5xx); safe to retry' },
  notConfirmed: { code: 8, meaning: 'Not confirmed: the change was declined, or needs `--yes` without a terminal' },
  operationFailed: { code: 10, meaning: 'The operation waited on failed' },
  operationCancelled: { code: 11, meaning: 'The operation waited on was cancelled' },
  stillRunning: { code: 12, meaning: 'Gave up waiting (`--timeout`); the operation goes on' },
  interrupted: { code: 130, meaning: 'Interrupted (Ctrl-C)' },
} as const;

export type ExitName = keyof typeof EXIT;

/** The exit code for an API error's HTTP status. */
export function exitForStatus(status: number): ExitName {
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'notFound';
  if (status === 429 || status >= 500) return 'unavailable';
  return status >= 400 ? 'refused' : 'unexpected';
}

/** The table as text, for the end of `--help`. */
export function exitCodesHelp(): string {
  const rows = Object.values(EXIT).map(({ code, meaning }) => `  ${String(code).padStart(3)}  ${meaning}`);
  return `Exit codes:\n${rows.join('\n')}`;
}
