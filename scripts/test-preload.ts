// Test preload: nothing global yet; integration helpers live in scripts/test-support.
