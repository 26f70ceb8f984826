import { portFrom, requireEnv, stopOnSignal } from '../shared/sim-main.ts';
import { startRegisterBSimulator } from './register-b-simulator.ts';

// The register-b partner API simulator for dev and e2e: REGISTER_B_SIM_PORT, REGISTER_B_API_TOKEN (the
// partner token the platform sends). Each id of REGISTER_B_SIM_ACCOUNTS (comma-separated) is created with
// one branch `<id>-main` holding two products with stock, and one relation, so the admin routes have
// something to show; its link code (to connect it) is `LINK-<id>`.
const sim = startRegisterBSimulator({ port: portFrom('REGISTER_B_SIM_PORT'), apiToken: requireEnv('REGISTER_B_API_TOKEN') });
for (const raw of (process.env.REGISTER_B_SIM_ACCOUNTS ?? '').split(',')) {
  const id = raw.trim();
  if (!id) continue;
  // A known link code in development (the back office's connect form asks for it).
  sim.addAccount(id, { linkCode: `LINK-${id}` });
  const branch = sim.addBranch(id, `${id}-main`, 'Main branch');
  sim.addProduct(id, branch.id, { id: `${id}-p1`, name: 'House coffee', price: 280 });
  sim.addProduct(id, branch.id, { id: `${id}-p2`, name: 'Croissant', price: 220, vat_rate: 6 });
  branch.stock.set(`${id}-p1`, 40);
  branch.stock.set(`${id}-p2`, 12);
  sim.addRelation(id, { name: 'Sample relation', email: 'relation@example.com', discount_percent: 10 });
}
console.log(`register-b simulator listening on ${sim.url}`);
stopOnSignal(() => sim.stop());
