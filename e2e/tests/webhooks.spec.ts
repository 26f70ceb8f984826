import { readFileSync } from 'node:fs';
import pg from 'pg';
import { expect, test } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { cardASimUrl, E2E } from '../support/stack-env.ts';

/**
 * Issue 13: the card-a simulator (a separate process) delivers its signed terminal webhook to the
 * running API, which verifies it, resolves the tenant from the reader and captures: the kiosk sees
 * `Complete` without asking for details (no poll capture).
 */
test.describe.serial('inbound webhooks', () => {
  test('card-a reader payment: the simulator\'s signed webhook completes the kiosk transaction', async ({ request }) => {
    const seed = loadSeed();
    const kioskDevice = seed.devices.find((d) => d.id === seed.kiosk.device_id)!;
    // The kiosk's location on its own payment profile whose card-a account takes charges (the rows the
    // back office's connect and onboarding leave; that path is tested in the API's card-a-events test).
    const db = new pg.Client({ connectionString: readFileSync(E2E.databaseUrlFile, 'utf8') });
    await db.connect();
    const tenant = seed.merchant.tenant_database;
    const setProfile = async (cardA: boolean) => {
      await db.query(`delete from "${tenant}".payment_profiles where name = 'e2e webhooks card-a'`);
      if (cardA)
        await db.query(
          `with p as (insert into "${tenant}".payment_profiles (id, name, is_default, card_a_account_id, card_a_charges_enabled) values (gen_random_uuid(), 'e2e webhooks card-a', false, 'acct_e2e_webhooks', true) returning id)
           update "${tenant}".locations set payment_profile_id = (select id from p) where id = $1`,
          [kioskDevice.location_id],
        );
    };
    await setProfile(true);
    try {
      const { token } = await (await request.post('/api/login', { data: seed.backoffice })).json();
      const code = (await (await request.post(`/api/back-office/devices/${seed.kiosk.device_id}/new-activation-code`, { headers: { authorization: `Bearer ${token}` } })).json()).data.activation_code;
      const act = await (await request.post('/api/device-auth/activate', { data: { activation_code: code } })).json();
      const headers = { authorization: `Bearer ${act.token}`, 'x-client-api-key': E2E.env.DEVICE_API_KEY };
      const item = seed.items.find((i) => i.name === 'Espresso')!;
      const created = await request.post('/api/kiosk/payment/create-intent', { headers, data: { lines: [{ item_id: item.id, qty: 1 }] } });
      expect(created.status()).toBe(200);
      const t = (await created.json()).data;
      expect(t).toMatchObject({ payment_provider: 'card-a', status: 'Awaiting Payment' });

      // The customer taps the card on the reader; the simulator posts the signed webhook to the API.
      const paid = await request.post(cardASimUrl(`/_sim/readers/${t.payment_snapshot.reader_id}/complete`));
      expect(paid.status()).toBe(200);

      const key = encodeURIComponent(t.idempotency_key);
      const end = Date.now() + 10_000;
      let status = '';
      while (Date.now() < end) {
        status = (await (await request.get(`/api/kiosk/payment/session-status?idempotency_key=${key}`, { headers })).json()).data.status;
        if (status === 'Complete') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe('Complete');
      const steps = await db.query(`select step, outcome from "${seed.merchant.tenant_database}".transaction_steps where transaction_id = $1 and step = 'capture'`, [t.id]);
      expect(steps.rows).toEqual([{ step: 'capture', outcome: 'webhook' }]);
      // This payment's event (other suites' reader sales are logged for the same merchant).
      const log = await db.query(
        `select status, provider from webhook_logs where event_type = 'terminal.reader.action_succeeded' and merchant_id = $1 and payload->'data'->'object'->'action'->'process_payment_intent'->>'payment_intent' = $2`,
        [seed.merchant.id, t.payment_snapshot.id],
      );
      expect(log.rows).toEqual([{ status: 'processed', provider: 'card-a' }]);
    } finally {
      await setProfile(false);
      await db.end();
    }
  });
});
