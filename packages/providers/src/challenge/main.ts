import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startChallengeSimulator } from './challenge-simulator.ts';

// Standalone bot-challenge simulator for dev and e2e: CHALLENGE_SIM_PORT, CHALLENGE_SECRET.
const sim = startChallengeSimulator({ port: portFrom('CHALLENGE_SIM_PORT'), secret: requireEnv('CHALLENGE_SECRET') });
console.log(`challenge simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
