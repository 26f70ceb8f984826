import { createLogger, exitOnConfigError, portOf, PrinterPollEnv, readEnv } from '@pos/kernel';
import { createPrinterPollApp } from './app.ts';
import { buildPrinterPollDeps } from './deps.ts';

exitOnConfigError(() => readEnv(PrinterPollEnv));
let built: Awaited<ReturnType<typeof buildPrinterPollDeps>>;
try {
  built = await buildPrinterPollDeps(process.env);
} catch (e) {
  createLogger({ service: 'printer-poll' }).error('printer-poll could not start', { err: e });
  process.exit(1);
}
const { deps, config, close } = built;
const port = portOf(config.PRINTER_POLL_PORT, 3100);
const app = createPrinterPollApp(deps).listen({ port, hostname: '0.0.0.0' });
deps.log.info('printer-poll listening', { port });

let shuttingDown = false;
const shutdown = async () => {
  if (shuttingDown) return;
  shuttingDown = true;
  try {
    await app.stop();
    await close();
  } finally {
    process.exit(0);
  }
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
