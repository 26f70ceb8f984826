import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startMailApiSimulator } from './mail-api-simulator.ts';

// Standalone e-mail-send simulator for dev and e2e: MAIL_API_SIM_PORT, MAIL_API_KEY.
const sim = startMailApiSimulator({ port: portFrom('MAIL_API_SIM_PORT'), apiKey: requireEnv('MAIL_API_KEY') });
console.log(`mail-api simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
