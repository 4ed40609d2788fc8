import type { Locator, Page } from '@playwright/test';
import { startXvnc } from '../bed';
import { expect, test } from './fixtures';
import { viewXvnc } from './desktopSteps';

/**
 * The viewer's HUD moves off the part of the desktop the user needs (issue 43: it covered the desktop):
 * dragged by its title bar it docks to the nearest corner, its button walks it to the next one, and
 * the corner is the same after the app is reloaded and the desktop opened again.
 */

/** Which corner of the viewer's area the HUD's box sits in, judged from the boxes themselves. */
async function cornerOf(page: Page, hud: Locator): Promise<string> {
  const area = (await page.locator('.viewer-body').boundingBox())!;
  const box = (await hud.boundingBox())!;
  const near = (a: number, b: number) => Math.abs(a - b) <= 12; // the 8 px margin and a border
  const v = near(box.y, area.y) ? 'top' : near(box.y + box.height, area.y + area.height) ? 'bottom' : 'middle';
  const h = near(box.x, area.x) ? 'left' : near(box.x + box.width, area.x + area.width) ? 'right' : 'centre';
  return `${v}-${h}`;
}

test('HUD: dragged by its title it docks to the nearest corner, the button moves it on, and the corner stays after a reload', async ({ page, env }) => {
  test.setTimeout(120_000);
  const xvnc = await startXvnc({ geometry: '800x600' });
  try {
    await viewXvnc(page, env, 'hud-dock', xvnc.display);
    const hud = page.getByTestId('hud');
    await expect(hud).toBeVisible();
    await expect.poll(() => cornerOf(page, hud)).toBe('top-right');

    // Dragged to near the bottom-left: it follows the pointer, then docks there.
    const bar = (await page.getByTestId('hud-bar').boundingBox())!;
    const area = (await page.locator('.viewer-body').boundingBox())!;
    await page.mouse.move(bar.x + 20, bar.y + bar.height / 2);
    await page.mouse.down();
    await page.mouse.move(area.x + area.width / 2, area.y + area.height / 2, { steps: 5 });
    await expect.poll(() => cornerOf(page, hud)).toBe('middle-centre');
    await page.mouse.move(area.x + 60, area.y + area.height - 40, { steps: 5 });
    await page.mouse.up();
    await expect(hud).toHaveAttribute('data-corner', 'bottom-left');
    await expect.poll(() => cornerOf(page, hud)).toBe('bottom-left');
    await expect(page.getByTestId('viewer-phase')).toHaveText('connected');

    // The same corner in the next session: the window reloaded (it comes back to the viewer, which opens the desktop again).
    await env.app.open(page);
    await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 30_000 });
    await expect(hud).toHaveAttribute('data-corner', 'bottom-left');
    await expect.poll(() => cornerOf(page, hud)).toBe('bottom-left');

    // From the keyboard's reach too: the title bar's button, to the next corner.
    await page.getByRole('button', { name: 'Move to the next corner' }).click();
    await expect.poll(() => cornerOf(page, hud)).toBe('top-left');
  } finally {
    // Later specs in this window expect the HUD where it starts.
    await page.evaluate(() => localStorage.removeItem('gpu-desk.viewer.hudCorner')).catch(() => {});
    await xvnc.stop();
  }
});
