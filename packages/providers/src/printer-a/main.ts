import { optionalMs, portFrom, stopOnSignal } from '../shared/sim-main.ts';
import { startPrinterSimulator } from './printer-simulator.ts';

// Standalone printer-a simulator (a printer that polls) for dev and e2e: PRINTER_SIM_PORT (control API),
// PRINTER_SIM_OUTPUT (JSON lines of printed documents), PRINTER_SIM_INTERVAL_MS (default 5000), and
// optionally PRINTER_SIM_POLL_URL with PRINTER_SIM_TOKEN (else paired later through POST /_sim/pair).
const sim = startPrinterSimulator({
  controlPort: portFrom('PRINTER_SIM_PORT'),
  intervalMs: optionalMs('PRINTER_SIM_INTERVAL_MS') ?? 5000,
  ...(process.env.PRINTER_SIM_OUTPUT ? { outputFile: process.env.PRINTER_SIM_OUTPUT } : {}),
  ...(process.env.PRINTER_SIM_POLL_URL ? { pollUrl: process.env.PRINTER_SIM_POLL_URL, token: process.env.PRINTER_SIM_TOKEN ?? '' } : {}),
});
console.log(`printer-a simulator control API on ${sim.controlUrl}`);
stopOnSignal(() => sim.stop());
