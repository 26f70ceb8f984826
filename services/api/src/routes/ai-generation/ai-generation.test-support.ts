import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startGenerationSimulator } from '@pos/providers/generation/generation-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

export const DESCRIPTION_PATH = '/api/back-office/description-generator/generate';
export const PHOTO_PATH = '/api/back-office/ai-photo';

/** Two merchants on a test API whose generation provider is a simulator started with `apiKey`. */
export interface GenerationTestbed {
  readonly api: TestApi;
  readonly sim: ReturnType<typeof startGenerationSimulator>;
  readonly a: DemoSeedResult;
  readonly b: DemoSeedResult;
  /** The owners' back-office tokens. */
  readonly owner: string;
  readonly ownerB: string;
  tdbOf(m: DemoSeedResult): ReturnType<typeof bindTenant>;
  close(): Promise<void>;
}

export async function generationTestbed(apiKey: string, seedPrefix: string): Promise<GenerationTestbed> {
  const sim = startGenerationSimulator({ apiKey });
  const api = await createTestApi({ env: { GENERATION_BASE_URL: sim.url, GENERATION_API_KEY: apiKey } });
  const a = await api.seed(`${seedPrefix}-a`);
  const b = await api.seed(`${seedPrefix}-b`);
  return {
    api,
    sim,
    a,
    b,
    owner: await api.ownerToken(a),
    ownerB: await api.ownerToken(b),
    tdbOf: (m) => bindTenant(api.deps.db, m.merchant.tenant_database),
    async close() {
      await api.close();
      sim.stop();
    },
  };
}
