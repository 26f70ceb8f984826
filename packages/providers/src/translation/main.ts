import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startTranslationSimulator } from './translation-simulator.ts';

// Standalone translation simulator for dev and e2e: TRANSLATION_SIM_PORT, TRANSLATION_API_KEY.
const sim = startTranslationSimulator({ port: portFrom('TRANSLATION_SIM_PORT'), apiKey: requireEnv('TRANSLATION_API_KEY') });
console.log(`translation simulator listening on ${sim.url}`);
stopOnSignal(async () => sim.stop());
