import { optionalMs, portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startPlatformASimulator } from './platform-a-simulator.ts';

// Standalone platform-a simulator for dev and e2e: PLATFORM_A_SIM_PORT, PLATFORM_A_ACCESS_TOKEN,
// optional PLATFORM_A_SIM_WEBHOOK_URL with PLATFORM_A_WEBHOOK_SIGNATURE_KEY, and PLATFORM_A_SIM_AUTO_COMPLETE_MS.
const autoCompleteMs = optionalMs('PLATFORM_A_SIM_AUTO_COMPLETE_MS');
const sim = startPlatformASimulator({
  port: portFrom('PLATFORM_A_SIM_PORT'),
  accessToken: requireEnv('PLATFORM_A_ACCESS_TOKEN'),
  ...(process.env.PLATFORM_A_SIM_WEBHOOK_URL
    ? { webhookUrl: process.env.PLATFORM_A_SIM_WEBHOOK_URL, webhookSignatureKey: process.env.PLATFORM_A_WEBHOOK_SIGNATURE_KEY ?? '' }
    : {}),
  ...(autoCompleteMs !== undefined ? { autoCompleteMs } : {}),
});
console.log(`platform-a simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
