/** `bun run bench`: every benchmark prints its figures beside a baseline measured in the same run. */
import { runSettleBench } from './settle.bench.ts';
import { runHostileMemoryBench } from './hostile-memory.bench.ts';

await runSettleBench();
await runHostileMemoryBench();
