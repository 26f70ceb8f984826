import { createLogger, exitOnConfigError, portOf, PrinterPollEnv, readEnv } from '@pos/kernel';
import { createPrinterPollApp } from './app.ts';
import { buildPrinterPollDeps } from './deps.ts';
import { PollState } from './poll-state.ts';
import { PollThrottle } from './poll-throttle.ts';
import { PRINTER_POLL_THROTTLE } from './routes/printer-a-sdp.ts';
import { pollServeOptions } from './serve-options.ts';

exitOnConfigError(() => readEnv(PrinterPollEnv));
let built: Awaited<ReturnType<typeof buildPrinterPollDeps>>;
try {
  built = await buildPrinterPollDeps(process.env);
} catch (e) {
  createLogger({ service: 'printer-poll' }).error('printer-poll could not start', { err: e });
  process.exit(1);
}
const { deps, config, close, databaseUrl } = built;
const port = portOf(config.PRINTER_POLL_PORT, 3100);
// Idle polls are answered from memory once the LISTEN connection is up (poll-state.ts).
const state = new PollState(deps.db);
await state.listen(databaseUrl);
const throttle = new PollThrottle(deps.redis, PRINTER_POLL_THROTTLE);
throttle.start();
const app = createPrinterPollApp(deps, state, throttle).listen({ ...pollServeOptions, port, hostname: '0.0.0.0' });
deps.log.info('printer-poll listening', { port });

let shuttingDown = false;
const shutdown = async () => {
  if (shuttingDown) return;
  shuttingDown = true;
  try {
    await app.stop();
    await state.stop();
    await throttle.stop();
    await close();
  } finally {
    process.exit(0);
  }
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
