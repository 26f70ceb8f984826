import { portFrom, stopOnSignal } from '../shared/sim-main.ts';
import { startRegisterCSimulator } from './register-c-simulator.ts';

// The register-c API simulator for dev and e2e: REGISTER_C_SIM_PORT. Tokens the connect flow obtained
// from the OAuth simulator (REGISTER_C_OAUTH_URL with REGISTER_C_CLIENT_ID/SECRET) are accepted through
// its introspection endpoint, each account getting a demo business location. (main.ts is its OAuth endpoint.)
const oauthUrl = process.env.REGISTER_C_OAUTH_URL;
const clientId = process.env.REGISTER_C_CLIENT_ID;
const clientSecret = process.env.REGISTER_C_CLIENT_SECRET;
const sim = startRegisterCSimulator({
  port: portFrom('REGISTER_C_SIM_PORT'),
  ...(oauthUrl && clientId && clientSecret ? { introspect: { url: oauthUrl, clientId, clientSecret } } : {}),
});
console.log(`register-c API simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
