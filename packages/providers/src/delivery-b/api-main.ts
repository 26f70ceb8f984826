import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startDeliveryBSimulator } from './delivery-b-simulator.ts';

// The delivery-b store API simulator for dev: DELIVERY_B_SIM_PORT, DELIVERY_B_API_TOKEN;
// DELIVERY_B_SIM_STORES (comma-separated store ids, `id@account` for a store of a delivery-b account) are
// created at start. (main.ts is its OAuth endpoint: with DELIVERY_B_OAUTH_URL, DELIVERY_B_CLIENT_ID and
// DELIVERY_B_CLIENT_SECRET set, the tokens it issued are accepted on `/v2/me/stores` through its introspection.)
// Order webhooks go to DELIVERY_B_SIM_WEBHOOK_URL signed with DELIVERY_B_WEBHOOK_SECRET (both optional).
const sim = startDeliveryBSimulator({
  port: portFrom('DELIVERY_B_SIM_PORT'),
  apiToken: requireEnv('DELIVERY_B_API_TOKEN'),
  ...(process.env.DELIVERY_B_SIM_WEBHOOK_URL ? { webhookUrl: process.env.DELIVERY_B_SIM_WEBHOOK_URL } : {}),
  ...(process.env.DELIVERY_B_WEBHOOK_SECRET ? { webhookSecret: process.env.DELIVERY_B_WEBHOOK_SECRET } : {}),
  ...(process.env.DELIVERY_B_OAUTH_URL && process.env.DELIVERY_B_CLIENT_ID && process.env.DELIVERY_B_CLIENT_SECRET
    ? { introspect: { url: process.env.DELIVERY_B_OAUTH_URL, clientId: process.env.DELIVERY_B_CLIENT_ID, clientSecret: process.env.DELIVERY_B_CLIENT_SECRET } }
    : {}),
});
for (const entry of (process.env.DELIVERY_B_SIM_STORES ?? '').split(',').filter(Boolean)) {
  const [id, account] = entry.trim().split('@');
  sim.addStore(id!, undefined, account || null);
}
console.log(`delivery-b simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
