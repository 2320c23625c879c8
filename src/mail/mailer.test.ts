import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { createMailer, messageIdFor } from './mailer.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'mailer-'));
});
afterAll(async () => rm(dataDir, { recursive: true, force: true }));

describe('mailer', () => {
  it('derives a valid Message-ID from the idempotency key and the sender domain', () => {
    expect(messageIdFor('revoke-key:key_Abc', 'Security <security@example.com>')).toBe('<revoke-key.key_Abc@example.com>');
    expect(messageIdFor('a b', 'no-reply@localhost')).toBe('<a.b@localhost>');
  });

  it('without SMTP_URL writes the message to DATA_DIR/mail, once per idempotency key', async () => {
    const lines: string[] = [];
    const logger = createLogger({ logLevel: 'info' }, {}, { write: (line: string) => lines.push(line) });
    const mailer = createMailer({ mail: { smtpUrl: undefined, from: 'Security <security@example.com>' }, dataDir }, logger);
    const message = { to: 'owner@example.com', subject: 'Hello', text: 'Found at https://github.com/a/b', date: new Date('2025-03-04T05:06:07.890Z'), idempotencyKey: 'revoke-key:key_1' };
    const first = await mailer.send(message);
    const second = await mailer.send(message);
    expect(first).toEqual(second);
    expect(first).toMatchObject({ transport: 'file', messageId: '<revoke-key.key_1@example.com>' });
    expect(await readdir(path.join(dataDir, 'mail'))).toEqual(['20250304T050607Z-revoke-key.key_1.eml']);
    const eml = await readFile(first.path!, 'utf8');
    expect(eml).toContain('Message-ID: <revoke-key.key_1@example.com>');
    expect(eml).toContain('To: owner@example.com');
    expect(eml).toContain('https://github.com/a/b');
    expect(lines.some((line) => line.includes(first.path!))).toBe(true);
  });
});
