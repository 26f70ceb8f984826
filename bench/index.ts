/**
 * `bun run bench`: every benchmark prints its figures beside a baseline measured in the same run.
 * `bun run bench NAME` (or BENCH_ONLY=NAME) runs one: migrate, settle, bootstrap, hostile, post-capture, kds or printer;
 * `post-capture-steps` (a diagnostic: the post-capture sequence's CPU step by step) runs only when named.
 */
import { runSettleBench } from './settle.bench.ts';
import { runMigrateBench } from './migrate.bench.ts';
import { runBootstrapBench } from './bootstrap.bench.ts';
import { runHostileMemoryBench } from './hostile-memory.bench.ts';
import { runPostCaptureBench } from './post-capture.bench.ts';
import { runKdsBench } from './kds.bench.ts';
import { runPrinterBench } from './printer.bench.ts';
import { runPostCaptureStepsBench } from './post-capture-steps.bench.ts';

const only = process.argv[2] ?? process.env.BENCH_ONLY;
if (!only || only === 'migrate') await runMigrateBench();
if (!only || only === 'settle') await runSettleBench();
if (!only || only === 'bootstrap') await runBootstrapBench();
if (!only || only === 'hostile') await runHostileMemoryBench();
if (!only || only === 'post-capture') await runPostCaptureBench();
if (!only || only === 'kds') await runKdsBench();
if (!only || only === 'printer') await runPrinterBench();
// A diagnostic, run only when named: where a post-capture sequence's CPU goes, step by step.
if (only === 'post-capture-steps') await runPostCaptureStepsBench();
