/** Queue names, job definitions (name, queue, version, TypeBox payload schema) and the bee-queue factory. */
export * from './names.ts';
export * from './job-definition.ts';
export * from './jobs.ts';
export * from './fan-out.ts';
export * from './queue.ts';
