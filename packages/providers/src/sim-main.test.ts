import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { CardAClient, CardBClient, PlatformAClient } from './payments.ts';
import { exchangeAuthorizationCode } from './oauth/oauth-client.ts';

// The standalone simulator processes that `bun run dev` and the e2e stack start.
const procs: Bun.Subprocess[] = [];
afterAll(async () => {
  for (const p of procs) p.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
});

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

describe('simulator processes', () => {
  test('card-b, card-a and platform-a start from their environment and answer their clients', async () => {
    const b = await start('card-b/main.ts', { CARD_B_SIM_PORT: '0', CARD_B_CLIENT_ID: 'c', CARD_B_CLIENT_SECRET: 'secret-1234' });
    const cb = new CardBClient({ baseUrl: b, clientId: 'c', clientSecret: 'secret-1234' });
    await cb.startSale({ sessionId: 'p-1', terminalId: 'T', cashRegisterId: 'R', amount: 100, currencyCode: '978', merchantReference: 'm', customerTrns: 'c' });
    expect(await cb.getSession('p-1')).toEqual({ state: 'processing' });
    expect((await fetch(`${b}/_sim/ping`)).status).toBe(200);

    const a = await start('card-a/main.ts', { CARD_A_SIM_PORT: '0', CARD_A_SECRET_KEY: 'sk_proc_test' });
    const ca = new CardAClient({ baseUrl: a, secretKey: 'sk_proc_test' });
    expect((await ca.createPaymentIntent({ amount: 100, currency: 'EUR', paymentMethodTypes: ['card_present'], metadata: {}, idempotencyKey: 'x' })).status).toBe('requires_payment_method');

    const pa = await start('platform-a/main.ts', { PLATFORM_A_SIM_PORT: '0', PLATFORM_A_ACCESS_TOKEN: 'pa-proc-token', PLATFORM_A_SIM_AUTO_COMPLETE_MS: '50' });
    const pc = new PlatformAClient({ baseUrl: pa, accessToken: 'pa-proc-token' });
    const c = await pc.createTerminalCheckout({ idempotencyKey: 'k', amount: 100, currency: 'EUR', deviceId: 'D', referenceId: 'r' });
    await Bun.sleep(200);
    expect((await pc.getTerminalCheckout(c.id)).status).toBe('COMPLETED');
  });

  test('card-b verifies its webhook URL with CARD_B_WEBHOOK_KEY and retries after CARD_B_SIM_WEBHOOK_RETRY_MS', async () => {
    const seen: string[] = [];
    const hook = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (req) => (seen.push(req.method), req.method === 'GET' ? Response.json({ Key: 'proc-key-123' }) : new Response(null, { status: seen.length === 2 ? 500 : 200 })),
    });
    try {
      const b = await start('card-b/main.ts', { CARD_B_SIM_PORT: '0', CARD_B_CLIENT_ID: 'c', CARD_B_CLIENT_SECRET: 'secret-1234', CARD_B_SIM_WEBHOOK_URL: `http://127.0.0.1:${hook.port}/hook`, CARD_B_WEBHOOK_KEY: 'proc-key-123', CARD_B_SIM_WEBHOOK_RETRY_MS: '50' });
      const cb = new CardBClient({ baseUrl: b, clientId: 'c', clientSecret: 'secret-1234' });
      await cb.startSale({ sessionId: 'w-1', terminalId: 'T', cashRegisterId: 'R', amount: 100, currencyCode: '978', merchantReference: 'm', customerTrns: 'c' });
      expect((await fetch(`${b}/_sim/sessions/w-1/complete`, { method: 'POST' })).status).toBe(200);
      for (let i = 0; i < 100 && seen.length < 3; i++) await Bun.sleep(20);
      expect(seen).toEqual(['GET', 'POST', 'POST']);
      const read = async () => (await (await fetch(`${b}/_sim/webhooks`)).json()) as { verification: unknown; deliveries: { delivered: boolean }[] };
      let state = await read();
      // The receiver counts the retry before the simulator reads its answer.
      for (let i = 0; i < 50 && !state.deliveries[0]?.delivered; i++) state = (await Bun.sleep(20), await read());
      expect(state.verification).toEqual({ url: `http://127.0.0.1:${hook.port}/hook`, verified: true, reason: null });
      expect(state.deliveries).toMatchObject([{ attempts: 2, delivered: true, result: { status: 200 } }]);
    } finally {
      await hook.stop(true);
    }
  });

  test('the OAuth token endpoints of shop-a, platform-a, delivery-b and register-c start from their environment', async () => {
    for (const [provider, entry] of [['shop-a', 'shop-a/main.ts'], ['platform-a', 'platform-a/oauth-main.ts'], ['delivery-b', 'delivery-b/main.ts'], ['register-c', 'register-c/main.ts']] as const) {
      const p = provider.toUpperCase().replace('-', '_');
      const url = await start(entry, { [`${p}_OAUTH_SIM_PORT`]: '0', [`${p}_CLIENT_ID`]: 'client', [`${p}_CLIENT_SECRET`]: 'client-secret' });
      const code = ((await (await fetch(`${url}/_sim/codes`, { method: 'POST', body: JSON.stringify({ account_id: 'acct' }) })).json()) as { code: string }).code;
      const t = await exchangeAuthorizationCode({ provider, baseUrl: url, clientId: 'client', clientSecret: 'client-secret' }, code);
      expect(t.accessToken).toStartWith(`at_${provider}_`);
      expect(t.accountId).toBe('acct');
    }
  });

  test('a simulator without its credentials refuses to start', async () => {
    const p = Bun.spawn([process.execPath, join(import.meta.dir, 'card-b/main.ts')], { env: { PATH: process.env.PATH ?? '' }, stdout: 'pipe', stderr: 'pipe' });
    expect(await p.exited).toBe(1);
    expect(await new Response(p.stderr).text()).toContain('simulator needs CARD_B_CLIENT_ID');
  });
});
