import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startGenerationSimulator } from './generation-simulator.ts';

// Standalone generation simulator for dev: GENERATION_SIM_PORT, GENERATION_API_KEY.
const sim = startGenerationSimulator({ port: portFrom('GENERATION_SIM_PORT'), apiKey: requireEnv('GENERATION_API_KEY') });
console.log(`generation simulator listening on ${sim.url}`);
stopOnSignal(async () => sim.stop());
