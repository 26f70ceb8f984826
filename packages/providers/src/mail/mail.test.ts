import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mailerFromEnv, SmtpMailer } from './mailer.ts';
import { startSmtpCatcher, type SmtpCatcher } from './smtp-catcher.ts';

let c: SmtpCatcher;
beforeAll(async () => {
  c = await startSmtpCatcher();
});
afterAll(() => c.stop());

describe('SMTP mailer and catcher', () => {
  test('a mail sent over SMTP arrives with both parts, readable over the catcher HTTP API', async () => {
    const m = new SmtpMailer(c.smtpUrl, 'Ordering <no-reply@test.local>');
    await m.send({ to: 'Ann@Example.com', subject: 'Hello ✓', text: 'Plain body', html: '<p>HTML <b>body</b></p>' });
    m.close();
    const got = await c.waitFor('ann@example.com');
    expect(got.to).toEqual(['ann@example.com']);
    expect(got.subject).toBe('Hello ✓');
    expect(got.text.trim()).toBe('Plain body');
    expect(got.html).toContain('<b>body</b>');
    expect(got.from).toContain('no-reply@test.local');
    const listed = (await (await fetch(`${c.httpUrl}/messages?to=ann@example.com`)).json()) as { data: { subject: string }[] };
    expect(listed.data.map((x: { subject: string }) => x.subject)).toEqual(['Hello ✓']);
    expect((await fetch(`${c.httpUrl}/messages`, { method: 'DELETE' })).status).toBe(200);
    expect(((await (await fetch(`${c.httpUrl}/messages`)).json()) as { data: unknown[] }).data).toEqual([]);
  });

  test('unset SMTP_URL: no mailer; an unreachable relay fails the send', async () => {
    expect(mailerFromEnv({})).toBeNull();
    const m = new SmtpMailer('smtp://127.0.0.1:9', 'x@test.local');
    await expect(m.send({ to: 'a@b.c', subject: 's', text: 't', html: 'h' })).rejects.toThrow();
  });
});
