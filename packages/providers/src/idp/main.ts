import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startIdpSimulator } from './idp-simulator.ts';

// Standalone identity-provider simulator for dev and e2e: IDP_SIM_PORT, IDP_CLIENT_ID.
const sim = await startIdpSimulator({ port: portFrom('IDP_SIM_PORT'), clientId: requireEnv('IDP_CLIENT_ID') });
console.log(`idp simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
