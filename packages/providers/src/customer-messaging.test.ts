import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createSmsClient, MessagingError } from './sms/sms-client.ts';
import { startSmsSimulator } from './sms/sms-simulator.ts';
import { createMailApiClient } from './mail-api/mail-api-client.ts';
import { startMailApiSimulator } from './mail-api/mail-api-simulator.ts';
import { createChallengeClient } from './challenge/challenge-client.ts';
import { startChallengeSimulator } from './challenge/challenge-simulator.ts';

// The customer-login providers' clients against their simulators (real HTTP servers).
const sms = startSmsSimulator({ apiKey: 'sms-key-123456' });
const mail = startMailApiSimulator({ apiKey: 'mail-key-123456' });
const challenge = startChallengeSimulator({ secret: 'secret-123456' });
const procs: Bun.Subprocess[] = [];
afterAll(async () => {
  await Promise.all([sms.stop(), mail.stop(), challenge.stop()]);
  for (const p of procs) p.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
});

describe('sms', () => {
  test('sends with the key; a wrong key or a bad number is a MessagingError; unreachable too', async () => {
    const c = createSmsClient({ baseUrl: sms.url, apiKey: 'sms-key-123456' });
    const r = await c.send('+32470123456', '123456 is your code');
    expect(r.id).toMatch(/^sms_/);
    const listed = (await (await fetch(`${sms.url}/_sim/messages?to=%2B32470123456`)).json()) as { data: unknown[] };
    expect(listed.data).toEqual([{ id: r.id, to: '+32470123456', text: '123456 is your code', at: expect.any(String) }]);
    await expect(createSmsClient({ baseUrl: sms.url, apiKey: 'wrong-key-000' }).send('+32470123456', 'x')).rejects.toBeInstanceOf(MessagingError);
    await expect(c.send('0470', 'x')).rejects.toThrow('sms: answered 422');
    await expect(createSmsClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }).send('+32470123456', 'x')).rejects.toBeInstanceOf(MessagingError);
  });
});

describe('mail-api', () => {
  test('sends from the configured address; a wrong key is refused', async () => {
    const c = createMailApiClient({ baseUrl: mail.url, apiKey: 'mail-key-123456', from: 'codes@example.test' });
    const r = await c.send({ to: 'ann@example.com', subject: 'Code', text: '654321' });
    expect(mail.sent.at(-1)).toEqual({ id: r.id, from: 'codes@example.test', to: 'ann@example.com', subject: 'Code', text: '654321', at: expect.any(String) });
    await expect(createMailApiClient({ baseUrl: mail.url, apiKey: 'nope-nope-nope', from: 'a@b.c' }).send({ to: 'ann@example.com', subject: 'x', text: 'y' })).rejects.toThrow('mail-api: answered 401');
  });
});

describe('challenge', () => {
  test('a solved token verifies once; a forged token, a wrong secret or an unreachable service do not', async () => {
    const c = createChallengeClient({ baseUrl: challenge.url, secret: 'secret-123456' });
    const token = ((await (await fetch(`${challenge.url}/_sim/tokens`, { method: 'POST' })).json()) as { token: string }).token;
    expect(await c.verify(token, '10.0.0.1')).toBe(true);
    expect(await c.verify(token, '10.0.0.1')).toBe(false);
    expect(await c.verify('forged', null)).toBe(false);
    expect(await createChallengeClient({ baseUrl: challenge.url, secret: 'wrong-secret' }).verify(challenge.issue(), null)).toBe(false);
    expect(await createChallengeClient({ baseUrl: 'http://127.0.0.1:9', secret: 'secret-123456' }).verify(challenge.issue(), null)).toBe(false);
  });
});

describe('standalone processes', () => {
  async function start(entry: string, env: Record<string, string>): Promise<string> {
    const p = Bun.spawn([process.execPath, join(import.meta.dir, entry)], { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'inherit' });
    procs.push(p);
    const reader = p.stdout.getReader();
    let text = '';
    while (!/listening on (http:\/\/\S+)/.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${entry} exited: ${text}`);
      text += new TextDecoder().decode(value);
    }
    return /listening on (http:\/\/\S+)/.exec(text)![1]!;
  }

  test('sms, mail-api and challenge start from their environment and answer ping', async () => {
    const urls = [
      await start('sms/main.ts', { SMS_SIM_PORT: '0', SMS_API_KEY: 'k-12345678' }),
      await start('mail-api/main.ts', { MAIL_API_SIM_PORT: '0', MAIL_API_KEY: 'k-12345678' }),
      await start('challenge/main.ts', { CHALLENGE_SIM_PORT: '0', CHALLENGE_SECRET: 's-12345678' }),
    ];
    for (const u of urls) expect(await (await fetch(`${u}/_sim/ping`)).text()).toBe('pong');
  });
});
