import { portFrom, stopOnSignal } from '../shared/sim-main.ts';
import { startVatCheckSimulator } from './vat-check-simulator.ts';

// Standalone VAT check simulator for dev and e2e: VAT_CHECK_SIM_PORT, optional VAT_CHECK_SIM_UNAVAILABLE (comma-separated countries).
const sim = startVatCheckSimulator({
  port: portFrom('VAT_CHECK_SIM_PORT'),
  unavailableCountries: (process.env.VAT_CHECK_SIM_UNAVAILABLE ?? '').split(',').map((c) => c.trim()).filter(Boolean),
});
console.log(`vat-check simulator listening on ${sim.url}`);
stopOnSignal(async () => sim.stop());
