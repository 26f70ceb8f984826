import { startFdmSimulator } from './fdm-simulator.ts';

// Standalone simulator process for dev and e2e: FDM_SIM_PORT, FDM_SIM_SECRET, FDM_SIM_DEVICE_ID
// (optional FDM_SIM_SEED: 64 hex digits, so the signing key survives restarts).
const secret = process.env.FDM_SIM_SECRET;
const deviceId = process.env.FDM_SIM_DEVICE_ID;
if (!secret || !deviceId) {
  console.error('FDM simulator needs FDM_SIM_SECRET and FDM_SIM_DEVICE_ID');
  process.exit(1);
}
const port = Number(process.env.FDM_SIM_PORT ?? 0);
if (!Number.isInteger(port) || port < 0) {
  console.error(`FDM_SIM_PORT must be a port number, got ${process.env.FDM_SIM_PORT}`);
  process.exit(1);
}
const seed = process.env.FDM_SIM_SEED;
const sim = startFdmSimulator({ port, sharedSecret: secret, deviceId, ...(seed ? { seedHex: seed } : {}) });
console.log(`FDM simulator for device ${deviceId} listening on ${sim.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void sim.stop().then(() => process.exit(0));
  });
}
