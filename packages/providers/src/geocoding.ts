/** Geocoding provider client and simulator (online ordering address suggestions). */
export * from './geocoding/geocoding-client.ts';
export * from './geocoding/geocoding-simulator.ts';
