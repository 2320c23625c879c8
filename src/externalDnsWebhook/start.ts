import type { ExternalDnsWebhookConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { DEFAULT_HTTP_TIMEOUTS, listen } from '../http/listen.js';
import { createDnsApi } from './dnsApi.js';
import { ExternalDnsProvider } from './provider.js';
import { createHealthApp, createWebhookApp } from './app.js';
import { webhookFailure } from './apiFailures.js';

export interface RunningWebhook {
  webhookUrl: string;
  healthUrl: string;
  close(): Promise<void>;
}

/**
 * `--role external-dns-webhook`: external-dns's webhook provider, a sidecar that calls the api with
 * one key (docs/external-dns.md). It needs no database, Redis or Temporal.
 */
export async function startExternalDnsWebhook(config: ExternalDnsWebhookConfig, logger: Logger): Promise<RunningWebhook> {
  const provider = new ExternalDnsProvider(createDnsApi(config.api), logger);
  const webhook = await listen(createWebhookApp({ provider, logger, deadlineMs: config.deadlineMs }), config.webhook.host, config.webhook.port, DEFAULT_HTTP_TIMEOUTS, 'EXTERNAL_DNS_WEBHOOK_PORT');
  let health;
  try {
    health = await listen(createHealthApp(), config.health.host, config.health.port, DEFAULT_HTTP_TIMEOUTS, 'EXTERNAL_DNS_WEBHOOK_HEALTH_PORT');
  } catch (err) {
    await webhook.close(0);
    throw err;
  }
  logger.info({ url: webhook.url, healthUrl: health.url, api: config.api.url, org: config.api.orgId, mode: config.api.key.startsWith('svc_test_') ? 'test' : 'live' }, 'external-dns webhook listening');
  // Said at once rather than at external-dns's first call: a wrong key, org or URL, or no zones at all.
  const deadline = AbortSignal.timeout(config.deadlineMs);
  provider.domainFilter(deadline).then(
    (filter) => logger.info({ zones: filter.include }, filter.include.length > 0 ? 'zones offered to external-dns' : 'no zones: the organisation has no active domain this key may touch'),
    (err: unknown) => {
      let described: object = { err };
      try {
        const failure = webhookFailure(err, deadline);
        described = { status: failure.status, code: failure.code, detail: failure.detail };
      } catch {
        // Not a failure of the api: logged as it is.
      }
      logger.warn(described, 'the api refused or failed the first look at the zones');
    },
  );
  return {
    webhookUrl: webhook.url,
    healthUrl: health.url,
    close: async () => {
      await webhook.close();
      await health.close();
    },
  };
}
