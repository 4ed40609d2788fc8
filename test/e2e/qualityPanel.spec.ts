import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { startXvnc } from '../bed';
import { expect, test } from './fixtures';

/**
 * The viewer's Quality panel fits its width in both languages (its select boxes used to size to the
 * longest preset name: 419 px of content in a 298 px panel, labels cut off), and its close button stays
 * in view while the panel scrolls.
 */
async function panelFits(page: Page): Promise<{ overflow: number; closeInView: boolean }> {
  return page.evaluate(() => {
    const panel = document.querySelector('[data-testid="codec-panel"]') as HTMLElement;
    const close = panel.querySelector('.panel-head button') as HTMLElement;
    const p = panel.getBoundingClientRect();
    const c = close.getBoundingClientRect();
    const inside = c.left >= p.left && c.right <= p.right && c.top >= p.top && c.bottom <= p.bottom
      && c.right <= window.innerWidth && c.bottom <= window.innerHeight && c.width > 0;
    return { overflow: panel.scrollWidth - panel.clientWidth, closeInView: inside };
  });
}

for (const locale of ['en-US', 'zh-CN']) {
  test.describe(`in ${locale}`, () => {
    test.use({ locale, viewport: { width: 900, height: 420 } });

    test('the Quality panel fits its width and keeps its close button in view', async ({ page, env }) => {
      test.setTimeout(180_000);
      const xvnc = await startXvnc({ geometry: '640x400' });
      try {
        fs.writeFileSync(path.join(env.home, 'known_hosts'), `${env.bed.knownHostsLine}\n`);
        await env.app.invoke('profiles.save', {
          profile: {
            name: `quality-panel-${locale}`, host: '127.0.0.1', port: env.bed.port, user: env.bed.user, jumpHosts: [], auth: { kind: 'key-file', path: env.bed.userKeyPath },
            display: { number: xvnc.display }, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'off', adaptive: false }, forwards: [],
          },
        });
        await env.app.open(page);
        // This server's Connect button (its label differs by language; the worker's app keeps earlier servers).
        await page.locator('.server-list > li').filter({ hasText: `quality-panel-${locale}` }).locator('button.primary').click();
        await expect(page.getByTestId('viewer-phase')).toHaveAttribute('data-phase', 'connected', { timeout: 60_000 });
        await page.getByTestId('open-codec').click();
        const panel = page.getByTestId('codec-panel');
        await expect(panel).toBeVisible();
        await expect.poll(() => panelFits(page)).toEqual({ overflow: 0, closeInView: true });
        // Scrolled to its end (the window is short), the head with its × is still there.
        await panel.evaluate((el) => { el.scrollTop = el.scrollHeight; });
        await expect.poll(() => panelFits(page)).toEqual({ overflow: 0, closeInView: true });
        await env.shot(page, `quality-panel-${locale}`);
        await panel.locator('.panel-head button').click();
        await expect(panel).toBeHidden();
      } finally {
        await xvnc.stop();
      }
    });
  });
}
