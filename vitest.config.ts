import { defineConfig } from 'vitest/config';

// Integration tests start real sshd/Xvnc processes: keep files in parallel but bounded (2 cores).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/main/**/*.test.ts', 'src/**/*.test.ts'],
    // Limits on waiting, not targets: the CLI tests start the real CLI (node + tsx, ~1 s of CPU) ten times
    // or more per test, and on a machine shared with other test runs one start took 15 s of wall time.
    // Every wait inside a test is on a condition; these only stop a test that would hang.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
