import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { startXvnc } from '../bed';
import { expect, test } from './fixtures';
import { viewXvnc } from './desktopSteps';

/**
 * Keyboard grab, judged by what the X server receives: xev on a real Xvnc prints every key event its
 * window gets. Released, the keys the desk's own system takes (Super, Alt+Tab, Ctrl+Alt+arrows) are
 * not forwarded; grabbed (the toolbar, Ctrl+Alt+Shift+G, or full screen by default) they reach the
 * server. A plain key typed after them marks that everything sent before it has arrived.
 */

/** The keysym names xev printed for KeyPress events ("keycode 133 (keysym 0xffeb, Super_L)"). */
function pressed(file: string): string[] {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  return [...text.matchAll(/KeyPress event[\s\S]*?\(keysym 0x[0-9a-f]+, ([^)]+)\)/g)].map((m) => m[1]);
}

/** Presses `marker` and waits until xev has it: every key pressed before it has arrived (or was never sent). */
async function settle(page: Page, file: string, marker: string): Promise<string[]> {
  const count = () => pressed(file).filter((k) => k === marker).length;
  const seen = count();
  await page.keyboard.press(marker);
  await expect.poll(count, { timeout: 20_000, message: `xev receiving the marker key ${marker}` }).toBe(seen + 1);
  return pressed(file);
}

const isDeskKeysym = (k: string) => ['Super_L', 'Super_R', 'Tab', 'ISO_Left_Tab', 'Right'].includes(k);

async function deskKeys(page: Page): Promise<void> {
  await page.keyboard.press('Meta');
  await page.keyboard.press('Alt+Tab');
  await page.keyboard.press('Control+Alt+ArrowRight');
}

test('keyboard grab: released, Super, Alt+Tab and Ctrl+Alt+arrows stay on the desk; grabbed (toolbar, Ctrl+Alt+Shift+G, full screen) the X server receives them', async ({ page, env }) => {
  test.setTimeout(120_000);
  const dir = fs.mkdtempSync(path.join(env.home, 'xev-'));
  const out = path.join(dir, 'xev.txt');
  // No window manager: X's focus follows the pointer, which the click below puts in xev's window.
  const xvnc = await startXvnc({ geometry: '640x480', clients: [['sh', '-c', `exec xev -event keyboard -geometry 620x460+0+0 > '${out}'`]] });
  try {
    await viewXvnc(page, env, 'grab', xvnc.display, { scaling: 'off' });
    const viewer = page.locator('section.viewer');
    await expect.poll(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8').includes('Outer window is'), { timeout: 20_000, message: 'xev running in the session' }).toBe(true);
    await page.locator('[data-testid="vnc-screen"] canvas').click({ position: { x: 200, y: 150 } });

    // Released (a window, not full screen): the desk's keys are not forwarded; a plain key is.
    await expect(viewer).toHaveAttribute('data-keyboard-grab', 'off');
    await expect(page.getByTestId('keyboard-grabbed')).toHaveCount(0);
    await deskKeys(page);
    let got = await settle(page, out, 'x');
    expect(got.filter(isDeskKeysym)).toEqual([]);

    // Ctrl+Alt+Shift+G grabs (the G itself is not sent): now they reach the server.
    await page.keyboard.press('Control+Alt+Shift+G');
    await expect(viewer).toHaveAttribute('data-keyboard-grab', 'on');
    await expect(page.getByTestId('keyboard-grabbed')).toHaveText('Keyboard grabbed — press Ctrl+Alt+Shift+G to release');
    await expect(page.getByTestId('keyboard-grab')).toHaveAttribute('aria-pressed', 'true');
    const before = got.length;
    await deskKeys(page);
    got = (await settle(page, out, 'y')).slice(before);
    expect(got).toEqual(expect.arrayContaining(['Super_L', 'Tab', 'Right']));
    expect(got.filter((k) => k === 'G' || k === 'g')).toEqual([]);

    // Ctrl+Alt+Shift+G again releases.
    await page.keyboard.press('Control+Alt+Shift+G');
    await expect(viewer).toHaveAttribute('data-keyboard-grab', 'off');
    await expect(page.getByTestId('keyboard-grabbed')).toHaveCount(0);
    let from = pressed(out).length;
    await page.keyboard.press('Meta');
    got = (await settle(page, out, 'z')).slice(from);
    expect(got.filter(isDeskKeysym)).toEqual([]);

    // The toolbar's toggle grabs as the shortcut does.
    await page.getByTestId('keyboard-grab').click();
    await expect(viewer).toHaveAttribute('data-keyboard-grab', 'on');
    from = pressed(out).length;
    await page.keyboard.press('Meta');
    got = (await settle(page, out, 'x')).slice(from);
    expect(got.filter(isDeskKeysym)).toEqual(['Super_L']);
    await page.getByTestId('keyboard-grab').click();
    await expect(viewer).toHaveAttribute('data-keyboard-grab', 'off');

    // Full screen grabs by default, with the Keyboard Lock API asked (its answer is the browser's).
    await page.getByRole('button', { name: 'Full screen' }).click();
    await expect.poll(() => page.evaluate(() => document.fullscreenElement !== null)).toBe(true);
    await expect(viewer).toHaveAttribute('data-keyboard-grab', 'on');
    await expect(page.getByTestId('keyboard-grabbed')).toBeVisible();
    await expect(viewer).not.toHaveAttribute('data-keyboard-lock', 'off');
    from = pressed(out).length;
    await deskKeys(page);
    got = (await settle(page, out, 'y')).slice(from);
    expect(got.filter(isDeskKeysym)).toEqual(['Super_L', 'Tab', 'Right']);
    // The release shortcut in full screen gives them back to the desk.
    await page.keyboard.press('Control+Alt+Shift+G');
    await expect(viewer).toHaveAttribute('data-keyboard-grab', 'off');
    from = pressed(out).length;
    await deskKeys(page);
    got = (await settle(page, out, 'z')).slice(from);
    expect(got.filter(isDeskKeysym)).toEqual([]);
    await page.evaluate(() => document.exitFullscreen());
    await expect(viewer).toHaveAttribute('data-keyboard-grab', 'off');
    await expect(viewer).toHaveAttribute('data-keyboard-lock', 'off');

    // With "Grab the keyboard in full screen" off, full screen leaves the desk's keys on the desk.
    await page.getByRole('button', { name: 'Send keys', exact: true }).click();
    await page.getByTestId('grab-in-full-screen').uncheck();
    await page.getByRole('button', { name: 'Send keys', exact: true }).click();
    await page.getByRole('button', { name: 'Full screen' }).click();
    await expect.poll(() => page.evaluate(() => document.fullscreenElement !== null)).toBe(true);
    await expect(viewer).toHaveAttribute('data-keyboard-grab', 'off');
    await page.locator('[data-testid="vnc-screen"] canvas').click({ position: { x: 200, y: 150 } });
    from = pressed(out).length;
    await page.keyboard.press('Meta');
    got = (await settle(page, out, 'z')).slice(from);
    expect(got.filter(isDeskKeysym)).toEqual([]);
    await page.evaluate(() => document.exitFullscreen());

    await page.getByRole('button', { name: 'Back to the server' }).click();
    await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
  } finally {
    await xvnc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
