/** `bun run bench`: every benchmark prints its figures beside a baseline measured in the same run. `bun run bench bootstrap`, `settle` or `post-capture` runs one. */
import { runSettleBench } from './settle.bench.ts';
import { runBootstrapBench } from './bootstrap.bench.ts';
import { runPostCaptureBench } from './post-capture.bench.ts';

const only = process.argv[2];
if (!only || only === 'settle') await runSettleBench();
if (!only || only === 'bootstrap') await runBootstrapBench();
if (!only || only === 'post-capture') await runPostCaptureBench();
