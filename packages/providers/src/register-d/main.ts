import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startRegisterDSimulator } from './register-d-simulator.ts';

// The register-d transport simulator for dev and e2e: REGISTER_D_SIM_PORT, REGISTER_D_API_TOKEN,
// REGISTER_D_VENDORS (comma-separated vendor words, default vendor-a,vendor-b); REGISTER_D_SIM_SITES
// (comma-separated `vendor:siteId`) are created at start. More sites: POST /_sim/vendors/{vendor}/sites.
const vendors = (process.env.REGISTER_D_VENDORS ?? 'vendor-a,vendor-b').split(',').map((v) => v.trim()).filter(Boolean);
const sim = startRegisterDSimulator({ port: portFrom('REGISTER_D_SIM_PORT'), apiToken: requireEnv('REGISTER_D_API_TOKEN'), vendors });
for (const entry of (process.env.REGISTER_D_SIM_SITES ?? '').split(',').filter(Boolean)) {
  const [vendor, site] = entry.trim().split(':');
  // Its link code is `LINK-<site id>` (what dev and e2e connect it with).
  if (vendor && site) sim.addSite(vendor, site, undefined, { linkCode: `LINK-${site}` });
}
console.log(`register-d simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
