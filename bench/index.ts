/** `bun run bench`: every benchmark prints its figures beside a baseline measured in the same run. `bun run bench bootstrap` or `settle` runs one. */
import { runSettleBench } from './settle.bench.ts';
import { runBootstrapBench } from './bootstrap.bench.ts';
import { runHostileMemoryBench } from './hostile-memory.bench.ts';

const only = process.argv[2];
if (!only || only === 'settle') await runSettleBench();
if (!only || only === 'bootstrap') await runBootstrapBench();
if (!only || only === 'hostile') await runHostileMemoryBench();
