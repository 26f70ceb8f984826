import { optionalMs, portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startRegisterASimulator } from './register-a-simulator.ts';

// Standalone register-a simulator for dev and e2e: REGISTER_A_SIM_PORT, REGISTER_A_SIM_PROD_KEY and
// REGISTER_A_SIM_STAGING_KEY (token signing keys), optional REGISTER_A_SIM_WEBHOOK_URL and
// REGISTER_A_SIM_WEBHOOK_RETRY_MS (30 minutes unless compressed). `POST /_sim/setup` creates an
// organisation, company and stores and answers a token over them.
const retry = optionalMs('REGISTER_A_SIM_WEBHOOK_RETRY_MS');
const sim = startRegisterASimulator({
  port: portFrom('REGISTER_A_SIM_PORT'),
  keys: { prod: requireEnv('REGISTER_A_SIM_PROD_KEY'), staging: requireEnv('REGISTER_A_SIM_STAGING_KEY') },
  ...(process.env.REGISTER_A_SIM_WEBHOOK_URL ? { webhookUrl: process.env.REGISTER_A_SIM_WEBHOOK_URL } : {}),
  ...(retry !== undefined ? { webhookRetryMs: retry } : {}),
});
console.log(`register-a simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
