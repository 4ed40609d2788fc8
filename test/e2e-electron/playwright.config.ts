import { defineConfig } from '@playwright/test';

/**
 * The Electron project: the built app (out/) launched with the real Electron binary through
 * Playwright's _electron.launch. Runs wherever that binary exists; elsewhere every spec reports
 * plainly that it was not run and why (see electronBinary.ts).
 */
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  timeout: 60_000,
  workers: 1,
  reporter: [['list']],
  outputDir: '../../test-results/electron',
  projects: [{ name: 'electron' }],
});
