import { optionalMs, portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startCardBSimulator } from './card-b-simulator.ts';

// Standalone card-b simulator for dev and e2e: CARD_B_SIM_PORT, CARD_B_CLIENT_ID, CARD_B_CLIENT_SECRET,
// optional CARD_B_SIM_WEBHOOK_URL with CARD_B_WEBHOOK_KEY (the key the URL must answer to the handshake,
// shared with the API), CARD_B_SIM_WEBHOOK_RETRY_MS (one hour unless compressed) and CARD_B_SIM_AUTO_COMPLETE_MS.
const autoCompleteMs = optionalMs('CARD_B_SIM_AUTO_COMPLETE_MS');
const retry = optionalMs('CARD_B_SIM_WEBHOOK_RETRY_MS');
const sim = startCardBSimulator({
  port: portFrom('CARD_B_SIM_PORT'),
  clientId: requireEnv('CARD_B_CLIENT_ID'),
  clientSecret: requireEnv('CARD_B_CLIENT_SECRET'),
  ...(process.env.CARD_B_SIM_WEBHOOK_URL ? { webhookUrl: process.env.CARD_B_SIM_WEBHOOK_URL } : {}),
  ...(process.env.CARD_B_WEBHOOK_KEY ? { webhookKey: process.env.CARD_B_WEBHOOK_KEY } : {}),
  ...(retry !== undefined ? { webhookRetryMs: retry } : {}),
  ...(autoCompleteMs !== undefined ? { autoCompleteMs } : {}),
});
console.log(`card-b simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
