import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startDeliveryBSimulator } from './delivery-b-simulator.ts';

// The delivery-b store API simulator for dev: DELIVERY_B_SIM_PORT, DELIVERY_B_API_TOKEN;
// DELIVERY_B_SIM_STORES (comma-separated store ids) are created at start. (main.ts is its OAuth endpoint.)
// Order webhooks go to DELIVERY_B_SIM_WEBHOOK_URL signed with DELIVERY_B_WEBHOOK_SECRET (both optional).
const sim = startDeliveryBSimulator({
  port: portFrom('DELIVERY_B_SIM_PORT'),
  apiToken: requireEnv('DELIVERY_B_API_TOKEN'),
  ...(process.env.DELIVERY_B_SIM_WEBHOOK_URL ? { webhookUrl: process.env.DELIVERY_B_SIM_WEBHOOK_URL } : {}),
  ...(process.env.DELIVERY_B_WEBHOOK_SECRET ? { webhookSecret: process.env.DELIVERY_B_WEBHOOK_SECRET } : {}),
});
for (const id of (process.env.DELIVERY_B_SIM_STORES ?? '').split(',').filter(Boolean)) sim.addStore(id.trim());
console.log(`delivery-b simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
