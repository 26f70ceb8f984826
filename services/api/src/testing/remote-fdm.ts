import { bindTenant, type CentralDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startFdmSimulator, type FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { createTestApi, type TestApi } from './harness.ts';

/** A seeded merchant whose fiscal data module is remote: the FDM simulator for it and an API configured to reach it. */
export interface RemoteFdm {
  readonly api: TestApi;
  readonly sim: FdmSimulator;
  readonly fdmId: string;
  /** The environment that reaches the simulator with `secret` (the API's own, or a wrong one to see refusals). */
  env(secret?: string): { FDM_REMOTE_URL: string; FDM_REMOTE_SECRETS: string };
  /** Closes the API, then stops the simulator. */
  close(): Promise<void>;
}

/**
 * Switches the seeded enrolment of `m` (seeded through a database `db`) to a remote module, then starts the
 * simulator for its fdm id (derived from the schema name, so the merchant is seeded first) and an API
 * configured with `secret`.
 */
export async function remoteFdm(db: CentralDb, m: DemoSeedResult, secret: string): Promise<RemoteFdm> {
  const tdb = bindTenant(db, m.merchant.tenant_database);
  const { fdm_id: fdmId } = await tdb.selectFrom('fdm_devices').select('fdm_id').where('location_id', '=', m.locations[0]!.id).executeTakeFirstOrThrow();
  await tdb.updateTable('fdm_devices').set({ mode: 'remote' }).where('fdm_id', '=', fdmId).execute();
  const sim = startFdmSimulator({ port: 0, sharedSecret: secret, deviceId: fdmId });
  const env = (s = secret) => ({ FDM_REMOTE_URL: sim.url, FDM_REMOTE_SECRETS: JSON.stringify({ [fdmId]: s }) });
  const api = await createTestApi({ env: env() });
  return {
    api,
    sim,
    fdmId,
    env,
    async close() {
      await api.close();
      await sim.stop();
    },
  };
}
