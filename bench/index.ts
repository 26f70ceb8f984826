/**
 * `bun run bench`: every benchmark prints its figures beside a baseline measured in the same run.
 * BENCH_ONLY=settle|migrate|hostile runs one of them.
 */
import { runSettleBench } from './settle.bench.ts';
import { runMigrateBench } from './migrate.bench.ts';
import { runHostileMemoryBench } from './hostile-memory.bench.ts';

const only = process.env.BENCH_ONLY;
if (!only || only === 'migrate') await runMigrateBench();
if (!only || only === 'settle') await runSettleBench();
if (!only || only === 'hostile') await runHostileMemoryBench();
