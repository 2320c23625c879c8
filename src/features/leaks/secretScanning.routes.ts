import { createHash } from 'node:crypto';
import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { InvalidSignatureError, ServiceUnavailableError } from '../../errors.js';
import { GithubSecretScanningKeys } from './githubKeys.js';
import { identifyTokens } from './identifyTokens.js';
import { startLeakResponse } from './startLeakResponse.js';
import { GithubAlertAnswer, GithubAlertBody, GithubSignatureHeaders } from './schemas.js';

const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

export type SecretScanningRouteDeps = Pick<PlatformDeps, 'db' | 'config' | 'logger' | 'keyHashSecret' | 'temporal'>;

export function secretScanningRoutes(deps: SecretScanningRouteDeps) {
  const githubKeys = new GithubSecretScanningKeys({ apiUrl: deps.config.github.apiUrl, token: deps.config.github.token, logger: deps.logger });
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/secret-scanning/github',
      operationId: 'receiveGithubSecretScanningAlert',
      summary: "GitHub's secret-scanning partner alerts: leaked live keys are revoked and their owners e-mailed",
      description:
        'Called by GitHub, not by clients: no bearer token, the body is signed instead. The signature headers are checked ' +
        "against GitHub's published keys before anything else. Each token is checked by format and checksum without a " +
        'database look-up; each active live key found is revoked (workflow `revoke-key:<key_id>`) and its owner e-mailed ' +
        'with the URL; a test key is reported to its owner but not revoked. The answer labels every token.',
      tags: ['secret scanning'],
      scope: 'public',
      request: { header: GithubSignatureHeaders, body: GithubAlertBody },
      verifyRequest: async (ctx) => {
        const keyIdentifier = ctx.get('github-public-key-identifier');
        const signature = ctx.get('github-public-key-signature');
        if (!keyIdentifier || !signature) {
          throw new InvalidSignatureError('Github-Public-Key-Identifier and Github-Public-Key-Signature headers are required');
        }
        let check;
        try {
          check = await githubKeys.verify(ctx.state.rawBody ?? Buffer.alloc(0), keyIdentifier, signature);
        } catch (err) {
          ctx.state.log.error({ err }, "could not load GitHub's secret-scanning public keys");
          throw new ServiceUnavailableError('UPSTREAM_UNAVAILABLE', "GitHub's public keys could not be loaded; retry later", 30);
        }
        if (!check.ok) {
          ctx.state.log.warn({ keyIdentifier, reason: check.reason }, 'refused a secret-scanning alert');
          throw new InvalidSignatureError(`The GitHub signature is not valid: ${check.reason}`);
        }
      },
      responses: { 200: { description: 'Every token labelled, in the order sent', schema: GithubAlertAnswer } },
      errors: {
        401: 'Signature headers missing, key identifier unknown to GitHub, or signature not matching the body (`INVALID_SIGNATURE`); nothing changes',
        503: "GitHub's public keys could not be loaded (`UPSTREAM_UNAVAILABLE`); GitHub retries",
      },
      handler: async (ctx, { body }) => {
        const identified = await identifyTokens({ db: deps.db, keyHashSecret: deps.keyHashSecret, tokens: body.map((alert) => alert.token) });
        const foundAt = new Date();
        const handled = new Set<string>();
        for (const [index, { key }] of identified.entries()) {
          if (!key || key.status !== 'active' || handled.has(key.id)) continue;
          handled.add(key.id);
          const { workflowId } = await startLeakResponse({
            temporal: { client: deps.temporal.client, taskQueue: deps.config.temporal.taskQueue },
            key,
            sourceUrl: body[index]!.url,
            source: 'github_secret_scanning',
            foundAt,
          });
          ctx.state.log.warn({ keyId: key.id, mode: key.mode, workflowId, sourceUrl: body[index]!.url }, 'leaked API key reported by GitHub');
        }
        ctx.body = body.map((alert, index) => ({
          token_hash: sha256Hex(alert.token),
          token_type: alert.type,
          label: identified[index]!.key ? ('true_positive' as const) : ('false_positive' as const),
        }));
      },
    }),
  ];
}
