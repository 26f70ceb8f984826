/** Payment provider clients and simulators (card-a, card-b, platform-a). */
export * from './shared/provider-error.ts';
export * from './card-a/card-a-client.ts';
export * from './card-a/card-a-simulator.ts';
export * from './card-b/card-b-client.ts';
export * from './card-b/card-b-simulator.ts';
export * from './card-b/card-b-events.ts';
export * from './platform-a/platform-a-client.ts';
export * from './platform-a/platform-a-simulator.ts';
