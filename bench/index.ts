/** `bun run bench`: every benchmark prints its figures beside a baseline measured in the same run. */
import { runSettleBench } from './settle.bench.ts';

await runSettleBench();
