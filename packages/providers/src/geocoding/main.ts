import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startGeocodingSimulator } from './geocoding-simulator.ts';

// Standalone geocoding simulator for dev: GEOCODING_SIM_PORT, GEOCODING_API_KEY.
const sim = startGeocodingSimulator({ port: portFrom('GEOCODING_SIM_PORT'), apiKey: requireEnv('GEOCODING_API_KEY') });
console.log(`geocoding simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
