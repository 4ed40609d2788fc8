import { defineConfig } from '@playwright/test';

/**
 * The Electron projects: the built app (out/) launched with the real Electron binary through
 * Playwright's _electron.launch — the shell's own checks, and the same user-flow specs the browser
 * harness runs (test/e2e/app.spec.ts, fixture option shell: 'electron'). Runs wherever that binary
 * exists; elsewhere every spec reports plainly that it was not run and why (see electronBinary.ts).
 */
export default defineConfig<object, { shell: 'harness' | 'electron' }>({
  testDir: '.',
  timeout: 60_000,
  workers: 1,
  reporter: [['list']],
  outputDir: '../../test-results/electron',
  expect: { timeout: 20_000 },
  projects: [
    { name: 'electron', testMatch: 'shell.spec.ts' },
    { name: 'electron-app', testDir: '../e2e', testMatch: 'app.spec.ts', timeout: 180_000, use: { shell: 'electron', viewport: { width: 1280, height: 860 } } },
  ],
});
