/** Runtime shared by services: configuration, logging, errors, Redis, clock, version record. */
export * from './config.ts';
export * from './errors.ts';
export * from './logger.ts';
export * from './clock.ts';
export * from './redis.ts';
export * from './version/index.ts';
export * from './throttle.ts';
export * from './queues/index.ts';
