// Test preload. Hooks (beforeAll seeding merchants, starting simulators) get the same 30 s as tests
// (bunfig's `timeout` covers tests only): on a loaded 2-core machine a seed can take more than bun's 5 s hook default.
import { setDefaultTimeout } from 'bun:test';

setDefaultTimeout(30_000);
