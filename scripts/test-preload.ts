// Test preload. Hooks (beforeAll seeding merchants, starting simulators) get the same 30 s as tests in a
// one-file run (`bun run test` passes --timeout 30000, which reaches every file): a seed on a loaded machine can take over 5 s.
import { setDefaultTimeout } from 'bun:test';

setDefaultTimeout(30_000);
