import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { inSpan } from '../telemetry/spans.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** When the event the message reports happened; also the message's `Date`. */
  date: Date;
  /**
   * Names the message for good (e.g. the workflow id). The `Message-ID` derives from it, so sending
   * it again after the server accepted it is the same message, not a second one.
   */
  idempotencyKey: string;
}

export interface SentMail {
  messageId: string;
  /** `smtp`: the server accepted it; `file`: written to the data dir (no `SMTP_URL`). */
  transport: 'smtp' | 'file';
  path?: string;
}

/** An SMTP answer that no retry can change (5xx), as opposed to a transient fault. */
export class MailRejectedError extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'MailRejectedError';
  }
}

export interface Mailer {
  send(message: MailMessage): Promise<SentMail>;
  close(): void;
}

/** `revoke-key:key_abc` → `revoke-key.key_abc`: what RFC 5322 allows left of the `@` in a Message-ID. */
function messageIdPart(value: string): string {
  return value.replace(/[^A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+/g, '.').replace(/^\.+|\.+$/g, '') || 'message';
}

function senderDomain(from: string): string {
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
  return address.split('@')[1]?.trim() || 'localhost';
}

export function messageIdFor(idempotencyKey: string, from: string): string {
  return `<${messageIdPart(idempotencyKey)}@${senderDomain(from)}>`;
}

/** `2025-01-02T03:04:05.678Z` → `20250102T030405Z`, for file names that sort by time. */
function compactTimestamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/**
 * Owner e-mail. With `SMTP_URL` it goes out over SMTP (nodemailer); without it, the message is
 * written as `DATA_DIR/mail/<timestamp>-<id>.eml` and logged, so development needs no mail server.
 * Either way the same idempotency key gives the same Message-ID (and the same file).
 */
export function createMailer(config: Pick<Config, 'mail' | 'dataDir'>, logger: Logger): Mailer {
  const { smtpUrl, from } = config.mail;
  const smtp = smtpUrl ? nodemailer.createTransport(smtpUrl) : undefined;
  // The host only: the URL may carry credentials.
  const smtpHost = smtpUrl ? new URL(smtpUrl).hostname : '';
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  const fields = (message: MailMessage) => ({
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    date: message.date,
    messageId: messageIdFor(message.idempotencyKey, from),
  });

  return {
    async send(message) {
      const mail = fields(message);
      if (smtp) {
        try {
          await inSpan('smtp send', { 'server.address': smtpHost }, () => smtp.sendMail(mail));
        } catch (err) {
          const code = (err as { responseCode?: number }).responseCode;
          if (code !== undefined && code >= 500) throw new MailRejectedError(code, (err as Error).message);
          throw err;
        }
        logger.info({ messageId: mail.messageId, to: mail.to, subject: mail.subject }, 'mail accepted by the SMTP server');
        return { messageId: mail.messageId, transport: 'smtp' };
      }
      const { message: raw } = await composer.sendMail(mail);
      const dir = path.join(config.dataDir, 'mail');
      const file = path.join(dir, `${compactTimestamp(message.date)}-${messageIdPart(message.idempotencyKey)}.eml`);
      await mkdir(dir, { recursive: true });
      await writeFile(file, raw);
      logger.info({ messageId: mail.messageId, to: mail.to, subject: mail.subject, path: file, text: mail.text }, 'no SMTP_URL: mail written to the data dir');
      return { messageId: mail.messageId, transport: 'file', path: file };
    },
    close() {
      smtp?.close();
    },
  };
}
