import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startDeliveryASimulator } from './delivery-a-simulator.ts';

// The delivery-a store API simulator for dev and e2e: DELIVERY_A_SIM_PORT, DELIVERY_A_API_TOKEN;
// DELIVERY_A_SIM_STORES (comma-separated store ids) are created at start. Order webhooks go to
// DELIVERY_A_SIM_WEBHOOK_URL signed with DELIVERY_A_WEBHOOK_SECRET (both optional).
const sim = startDeliveryASimulator({
  port: portFrom('DELIVERY_A_SIM_PORT'),
  apiToken: requireEnv('DELIVERY_A_API_TOKEN'),
  ...(process.env.DELIVERY_A_SIM_WEBHOOK_URL ? { webhookUrl: process.env.DELIVERY_A_SIM_WEBHOOK_URL } : {}),
  ...(process.env.DELIVERY_A_WEBHOOK_SECRET ? { webhookSecret: process.env.DELIVERY_A_WEBHOOK_SECRET } : {}),
});
// Each store's link code is `LINK-<store id>` (what the back office enables it with in dev and e2e).
for (const id of (process.env.DELIVERY_A_SIM_STORES ?? '').split(',').filter(Boolean)) sim.addStore(id.trim(), undefined, { linkCode: `LINK-${id.trim()}` });
console.log(`delivery-a simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
