import { z } from 'zod';

/** GitHub's secret-scanning partner alert: one entry per match, in batches. */
export const GithubAlertBody = z
  .array(
    z.object({
      token: z.string().min(1).max(1_000).describe('The matched string, as found'),
      type: z.string().min(1).max(200).describe('The token type name registered with GitHub'),
      url: z.string().max(2_000).describe('Public URL where the match was found'),
      source: z.string().max(100).optional().describe('Where GitHub found it: content, commit, pull_request_description, …'),
    }),
  )
  .min(1)
  .max(1_000)
  .meta({
    id: 'GithubSecretScanningAlert',
    example: [{ token: 'svc_live_Q3x9…', type: 'domain_service_api_key', url: 'https://github.com/octo-org/app/blob/main/.env', source: 'content' }],
  });

export const GithubSignatureHeaders = z.object({
  'github-public-key-identifier': z.string().min(1).describe('Which of the keys at `GITHUB_API_URL/meta/public_keys/secret_scanning` signed the body'),
  'github-public-key-signature': z.string().min(1).describe('Base64 ECDSA (P-256, SHA-256, DER) signature over the exact request body'),
});

export const GithubAlertAnswer = z
  .array(
    z.object({
      token_hash: z.string().describe('SHA-256 of the token, hex'),
      token_type: z.string(),
      label: z.enum(['true_positive', 'false_positive']).describe('`true_positive`: one of our keys (live keys are being revoked)'),
    }),
  )
  .meta({ id: 'GithubSecretScanningAnswer' });
