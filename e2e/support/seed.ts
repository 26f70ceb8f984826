import { readFileSync } from 'node:fs';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { E2E } from './stack-env.ts';

/** The demo seed the stack created for this run. */
export function loadSeed(): DemoSeedResult {
  return JSON.parse(readFileSync(E2E.seedFile, 'utf8')) as DemoSeedResult;
}
