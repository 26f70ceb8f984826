/**
 * Preloaded into the bench's API process only (BENCH_API_FLAGS="--preload ./bench/memory-probe.preload.ts"),
 * never part of the product: on SIGUSR2 it writes the process's heap figures to
 * /tmp/memory-probe-<pid>.json, first as they are, then after a full collection, so a bench can tell
 * retained memory from garbage. MEMORY_PROBE_SNAPSHOT=1 also writes a V8-format heap snapshot beside it.
 */
import { heapStats } from 'bun:jsc';
import { writeFileSync } from 'node:fs';

const out = `/tmp/memory-probe-${process.pid}.json`;
const figures = () => {
  const m = process.memoryUsage();
  const h = heapStats();
  const top = Object.entries(h.objectTypeCounts as Record<string, number>).sort((a, b) => b[1] - a[1]).slice(0, 25);
  return { rss: m.rss, heapSize: h.heapSize, heapCapacity: h.heapCapacity, extraMemorySize: h.extraMemorySize, objectCount: h.objectCount, external: m.external, arrayBuffers: m.arrayBuffers, top };
};
let snapshots = 0;
process.on('SIGUSR2', () => {
  const before = figures();
  Bun.gc(true);
  const after = figures();
  if (process.env.MEMORY_PROBE_SNAPSHOT === '1') writeFileSync(`${out}.${++snapshots}.heapsnapshot`, new Uint8Array(Bun.generateHeapSnapshot('v8', 'arraybuffer')));
  writeFileSync(out, JSON.stringify({ before, after }));
});
