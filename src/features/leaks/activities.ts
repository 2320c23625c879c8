import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Config } from '../../config.js';
import type { Db } from '../../db/pool.js';
import type { Logger } from '../../logger.js';
import type { Temporal } from '../../temporal/client.js';
import type { ApiKeyVerifier } from '../../auth/apiKeyVerifier.js';
import { hashApiKey, parseApiKey } from '../../auth/apiKeyFormat.js';
import { findApiKeyById } from '../../auth/apiKeys.js';
import { insertAuditEvent } from '../../audit/auditEvents.js';
import { findSeenTokenHashes, markTokensSeen } from './leakScanSeen.repository.js';
import { findUserById } from '../../auth/users.js';
import { derivedId } from '../../ids.js';
import { leakNotice, type LeakNoticeProps } from './leakNotice.mail.js';
import { createMailer, MailRejectedError, type Mailer } from '../../mail/mailer.js';
import { revokeApiKey } from '../apiKeys/index.js';
import { identifyTokens } from './identifyTokens.js';
import { startLeakResponse } from './startLeakResponse.js';
import { recordLeakedKey, recordLeakScanCompleted } from '../../metrics/record.js';
import {
  codeSearchUrl,
  extractTokens,
  fetchCodeSearchPage,
  GithubRateLimitedError,
  GithubRejectedError,
  type CodeSearchItem,
} from './githubCodeSearch.js';
import type { LeakScanSummary, LeakSource } from './leaks.contract.js';

export const LEAK_REVOCATION_REASON = 'found in public source code';

export interface LeakActivityDeps {
  config: Config;
  db: Db;
  logger: Logger;
  temporal: Temporal;
  apiKeys: Pick<ApiKeyVerifier, 'invalidate'>;
  keyHashSecret: string;
  /** Built from the config when absent. */
  mailer?: Mailer;
}

/** What the owner's e-mail needs; never the secret. */
export interface LeakNoticeFacts {
  to: string;
  ownerName: string | null;
  key: LeakNoticeProps['key'];
}

export type HandledLeak =
  | { outcome: 'revoked' | 'already_revoked' | 'reported'; notice: LeakNoticeFacts | undefined }
  | { outcome: 'gone'; notice: undefined };

/** Where a scan attempt stands, kept in its heartbeats so a retry resumes at the page it stopped on. */
interface ScanProgress {
  nextUrl: string | undefined;
  summary: LeakScanSummary;
}

export function createLeakActivities(deps: LeakActivityDeps) {
  const { db, logger } = deps;
  const mailer = deps.mailer ?? createMailer(deps.config, logger);

  /** One page of search results: checksum first (no database), then what is new, then the keys. */
  async function processItems(items: CodeSearchItem[], summary: LeakScanSummary): Promise<void> {
    const candidates = new Map<string, { token: string; sourceUrl: string }>();
    for (const item of items) {
      for (const match of item.text_matches ?? []) {
        for (const token of extractTokens(match.fragment ?? '')) {
          summary.tokens += 1;
          if (!parseApiKey(token)) continue;
          summary.wellFormed += 1;
          const hash = hashApiKey(deps.keyHashSecret, token).toString('hex');
          if (!candidates.has(hash)) candidates.set(hash, { token, sourceUrl: item.html_url });
        }
      }
    }
    if (candidates.size === 0) return;
    const seen = await findSeenTokenHashes(db, [...candidates.keys()]);
    const unseen = [...candidates].filter(([hash]) => !seen.has(hash));
    summary.unseen += unseen.length;
    if (unseen.length === 0) return;
    const identified = await identifyTokens({ db, keyHashSecret: deps.keyHashSecret, tokens: unseen.map(([, c]) => c.token) });
    const foundAt = new Date();
    for (const [index, { key }] of identified.entries()) {
      if (!key || key.status !== 'active') continue;
      summary.keysFound += 1;
      const started = await startLeakResponse({
        temporal: { client: deps.temporal.client, taskQueue: deps.config.temporal.taskQueue },
        key,
        sourceUrl: unseen[index]![1].sourceUrl,
        source: 'github_code_search',
        foundAt,
      });
      if (!started.alreadyClosed) summary.workflowsStarted += 1;
    }
    // Only once every workflow is started: a crash before this line makes the retry look again.
    await markTokensSeen(db, unseen.map(([tokenHash, c]) => ({ tokenHash, sourceUrl: c.sourceUrl })));
  }

  return {
    /**
     * Revokes a leaked live key (idempotent; caches invalidated, audit event written by
     * revokeApiKey) or records a leaked test key, which stays active. Returns what the owner's
     * e-mail needs, or `gone` when the key was deleted meanwhile (nothing to tell).
     */
    async handleLeakedKey(input: { keyId: string; sourceUrl: string; source: LeakSource; workflowId: string }): Promise<HandledLeak> {
      let key = await findApiKeyById(db, input.keyId);
      if (!key || key.status === 'deleted') return { outcome: 'gone', notice: undefined };
      let outcome: 'revoked' | 'already_revoked' | 'reported';
      if (key.mode === 'live') {
        const revoked = await revokeApiKey({
          db,
          apiKeys: deps.apiKeys,
          keyId: key.id,
          reason: LEAK_REVOCATION_REASON,
          sourceUrl: input.sourceUrl,
          requestId: input.workflowId,
        });
        if (revoked) {
          key = revoked;
          outcome = 'revoked';
        } else {
          key = await findApiKeyById(db, input.keyId);
          if (!key || key.status !== 'revoked') return { outcome: 'gone', notice: undefined };
          outcome = 'already_revoked';
        }
        logger.warn({ keyId: key.id, prefix: key.prefix, sourceUrl: input.sourceUrl, outcome }, 'leaked live API key revoked');
      } else {
        await insertAuditEvent(db, {
          id: derivedId('evt', input.workflowId),
          action: 'api_key.leak_reported',
          actorUserId: null,
          actorKeyId: null,
          orgId: null,
          targetType: 'api_key',
          targetId: key.id,
          livemode: false,
          data: { source: input.source, source_url: input.sourceUrl, revoked: false },
          requestId: input.workflowId,
        });
        outcome = 'reported';
        logger.warn({ keyId: key.id, prefix: key.prefix, sourceUrl: input.sourceUrl }, 'leaked test API key reported (test keys are not revoked)');
      }
      recordLeakedKey(key.mode, outcome);
      const owner = await findUserById(db, key.userId);
      if (!owner?.email) {
        logger.error({ keyId: key.id, userId: key.userId }, 'the owner of a leaked key has no e-mail address; nobody was told');
        return { outcome, notice: undefined };
      }
      return {
        outcome,
        notice: {
          to: owner.email,
          ownerName: owner.name,
          key: { id: key.id, name: key.name, prefix: key.prefix, mode: key.mode, scopes: key.scopes },
        },
      };
    },

    /** The owner's e-mail; its Message-ID derives from the workflow id, so a retry is the same message. */
    async sendLeakedKeyNotice(
      input: LeakNoticeFacts & Pick<LeakNoticeProps, 'outcome' | 'sourceUrl' | 'source'> & { foundAt: string; workflowId: string },
    ): Promise<{ messageId: string; transport: 'smtp' | 'file' }> {
      const message = leakNotice({ ...input, foundAt: new Date(input.foundAt), idempotencyKey: input.workflowId });
      try {
        const sent = await mailer.send(message);
        return { messageId: sent.messageId, transport: sent.transport };
      } catch (err) {
        if (err instanceof MailRejectedError) throw ApplicationFailure.nonRetryable(err.message, 'MAIL_REJECTED');
        throw err;
      }
    },

    /**
     * Pages through GitHub's code search for key-shaped strings, heartbeating after each page with
     * the next page's URL: a retry (after a rate limit or a crash) resumes there. Tokens already
     * handled by an earlier scan are skipped; each active key found gets a leak workflow.
     */
    async scanGithubForLeakedKeys(input: { query: string; perPage: number }): Promise<LeakScanSummary> {
      const context = Context.current();
      const { apiUrl, token } = deps.config.github;
      const resumed = context.info.heartbeatDetails as ScanProgress | undefined;
      const summary: LeakScanSummary = resumed?.summary ?? { pages: 0, tokens: 0, wellFormed: 0, unseen: 0, keysFound: 0, workflowsStarted: 0 };
      let url: string | undefined = resumed ? resumed.nextUrl : codeSearchUrl(apiUrl, input.query, input.perPage);
      while (url) {
        let page;
        try {
          page = await fetchCodeSearchPage({ url, apiUrl, token });
        } catch (err) {
          if (err instanceof GithubRateLimitedError) {
            throw ApplicationFailure.create({ type: 'GITHUB_RATE_LIMITED', message: err.message, nextRetryDelay: err.retryAfterMs });
          }
          if (err instanceof GithubRejectedError) throw ApplicationFailure.nonRetryable(err.message, 'GITHUB_REJECTED');
          throw err;
        }
        await processItems(page.items, summary);
        summary.pages += 1;
        url = page.nextUrl;
        context.heartbeat({ nextUrl: url, summary } satisfies ScanProgress);
        if (url && page.pauseMs !== undefined) {
          throw ApplicationFailure.create({
            type: 'GITHUB_RATE_LIMITED',
            message: `GitHub rate limit spent after page ${summary.pages}; resuming in ${Math.ceil(page.pauseMs / 1000)} s`,
            nextRetryDelay: page.pauseMs,
          });
        }
      }
      logger.info({ ...summary }, 'leak scan finished');
      recordLeakScanCompleted();
      return summary;
    },
  };
}

export type LeakActivities = ReturnType<typeof createLeakActivities>;
