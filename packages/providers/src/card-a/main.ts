import { optionalMs, portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startCardASimulator } from './card-a-simulator.ts';

// Standalone card-a simulator for dev and e2e: CARD_A_SIM_PORT, CARD_A_SECRET_KEY, optional
// CARD_A_SIM_WEBHOOK_URL with CARD_A_WEBHOOK_SECRET, and CARD_A_SIM_AUTO_COMPLETE_MS.
const autoCompleteMs = optionalMs('CARD_A_SIM_AUTO_COMPLETE_MS');
const sim = startCardASimulator({
  port: portFrom('CARD_A_SIM_PORT'),
  secretKey: requireEnv('CARD_A_SECRET_KEY'),
  ...(process.env.CARD_A_SIM_WEBHOOK_URL ? { webhookUrl: process.env.CARD_A_SIM_WEBHOOK_URL, webhookSecret: process.env.CARD_A_WEBHOOK_SECRET ?? '' } : {}),
  ...(autoCompleteMs !== undefined ? { autoCompleteMs } : {}),
});
console.log(`card-a simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
