import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startSmsSimulator } from './sms-simulator.ts';

// Standalone SMS simulator for dev and e2e: SMS_SIM_PORT, SMS_API_KEY.
const sim = startSmsSimulator({ port: portFrom('SMS_SIM_PORT'), apiKey: requireEnv('SMS_API_KEY') });
console.log(`sms simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
