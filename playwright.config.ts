import { defineConfig } from '@playwright/test';
import { viewerSwitchArgs } from './src/shared/chromiumSwitches';

// The renderer runs in Debian's Chromium against the browser harness (the Electron binary cannot be
// downloaded here); each worker starts its own real sshd and the harness in-process.
export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results/playwright',
  globalSetup: './test/e2e/globalSetup.ts',
  timeout: 180_000,
  expect: { timeout: 20_000 },
  // Two cores shared with other work: one browser at a time keeps timings honest.
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  reporter: [['list']],
  use: {
    viewport: { width: 1280, height: 860 },
    // The app follows the browser's language: pin English so the specs read the same on any machine
    // (the zh-CN spec sets its own).
    locale: 'en-US',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        browserName: 'chromium',
        launchOptions: {
          executablePath: '/usr/bin/chromium',
          // The app's own switches, so the specs see the viewer as the product runs it.
          args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', ...viewerSwitchArgs()],
        },
      },
    },
  ],
});
