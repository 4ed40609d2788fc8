import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { startXvnc } from '../bed';
import { expect, test, type Env } from './fixtures';
import { connectAndStartDesktop, stopAndDisconnect, viewDesktop, viewXvnc } from './desktopSteps';
import { canvasSize, chooseLossless, pixelsUnlikeServer } from './viewerPixels';
import { sideBySide } from '../../src/renderer/viewer/screenLayout';
import { shellQuote } from '../../src/core/remote/shellQuote';

interface Monitor { x: number; y: number; width: number; height: number }

/** The server's own RandR monitors (`xrandr --listmonitors`), run over the bed's SSH in the session's DISPLAY. */
function serverMonitors(env: Env, display: number): Promise<Monitor[]> {
  const known = path.join(env.home, 'known_hosts');
  return new Promise((resolve, reject) => {
    execFile('ssh', [
      '-F', 'none', '-o', 'BatchMode=yes', '-o', `UserKnownHostsFile=${known}`, '-o', 'GlobalKnownHostsFile=/dev/null',
      '-o', 'IdentitiesOnly=yes', '-i', env.bed.userKeyPath, '-p', String(env.bed.port), `${env.bed.user}@127.0.0.1`,
      `DISPLAY=${shellQuote(`:${display}`)} xrandr --listmonitors`,
    ], { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) { reject(new Error(`xrandr on :${display}: ${stderr.trim() || err.message}`)); return; }
      // " 0: +*VNC-0 512/135x768/203+0+0  VNC-0": width/mm x height/mm + x + y
      resolve([...stdout.matchAll(/^\s*\d+: \S+ (\d+)\/\d+x(\d+)\/\d+\+(\d+)\+(\d+)/gm)].map((m) => ({ width: Number(m[1]), height: Number(m[2]), x: Number(m[3]), y: Number(m[4]) })));
    });
  });
}

/** The viewer's area (noVNC's screen element, which remote resizing follows) in CSS pixels. */
function viewerArea(page: Page): Promise<{ width: number; height: number }> {
  return page.locator('[data-testid="vnc-screen"] > div').first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { width: Math.floor(r.width), height: Math.floor(r.height) };
  });
}

/** Chooses "2 side by side" and checks the server made exactly the two monitors the viewer asked for. */
async function twoScreensOnServer(page: Page, env: Env, display: number): Promise<void> {
  const before = await canvasSize(page);
  await page.getByLabel('Remote screens').selectOption('two');
  // The desktop takes the viewer's area, in two halves.
  const area = await viewerArea(page);
  const want = sideBySide(2, area.width, area.height);
  await expect.poll(() => canvasSize(page), { timeout: 30_000, message: 'the framebuffer at the viewer\'s area' }).toEqual({ w: want.width, h: want.height });
  const asked = want.screens.map(({ x, y, width, height }) => ({ x, y, width, height }));
  await expect.poll(() => serverMonitors(env, display), { timeout: 15_000, message: 'RandR monitors on the server' }).toEqual(asked);
  test.info().annotations.push({ type: 'screens', description: `${before.w}x${before.h} → ${JSON.stringify(asked)}` });
  const fb = await canvasSize(page);
  // One screen again: one monitor, the whole desktop.
  await page.getByLabel('Remote screens').selectOption('one');
  await expect.poll(() => serverMonitors(env, display), { timeout: 30_000 }).toEqual([{ x: 0, y: 0, width: fb.w, height: fb.h }]);
}

test('TigerVNC: "2 side by side" in the viewer makes two RandR monitors on the server, at the halves the viewer asked for', async ({ page, env }) => {
  test.setTimeout(180_000);
  const xvnc = await startXvnc({ geometry: '800x600' });
  try {
    await viewXvnc(page, env, 'tigerscreens', xvnc.display);
    await expect.poll(() => canvasSize(page)).toEqual({ w: 800, h: 600 });
    await twoScreensOnServer(page, env, xvnc.display);
    await page.getByRole('button', { name: 'Back to the server' }).click();
    await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
  } finally {
    await xvnc.stop();
  }
});

test('TurboVNC: a desktop started with two screens (multi-screen -geometry) has two RandR monitors, and takes "2 side by side" from the viewer', async ({ page, env }) => {
  test.setTimeout(420_000);
  const { display, row } = await connectAndStartDesktop(page, env, 'turboscreens', '640x480+0+0,512x384+640+48');
  expect(await serverMonitors(env, display)).toEqual([{ x: 0, y: 0, width: 640, height: 480 }, { x: 640, y: 48, width: 512, height: 384 }]);
  await viewDesktop(page, row, display);
  await expect.poll(() => canvasSize(page)).toEqual({ w: 1152, h: 480 });
  await twoScreensOnServer(page, env, display);
  await page.getByRole('button', { name: 'Back to the server' }).click();
  await stopAndDisconnect(page, row, display);
});

test('two desktops at once, each in its own page, each drawing its own server\'s screen; "New window" opens a viewer onto the same desktop', async ({ page, env, context }) => {
  test.setTimeout(240_000);
  const a = await startXvnc({ geometry: '800x600', clients: [['xterm', '-geometry', '40x8+0+0', '-T', 'desk-a']] });
  const b = await startXvnc({ geometry: '640x480', clients: [['xterm', '-geometry', '30x6+40+40', '-T', 'desk-b']] });
  const other = await context.newPage();
  try {
    fs.writeFileSync(path.join(env.home, 'known_hosts'), `${env.bed.knownHostsLine}\n`);
    for (const [name, x] of [['deska', a], ['deskb', b]] as const) {
      await env.app.invoke('profiles.save', {
        profile: {
          name, host: '127.0.0.1', port: env.bed.port, user: env.bed.user, jumpHosts: [], auth: { kind: 'key-file', path: env.bed.userKeyPath },
          display: { number: x.display }, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'off', adaptive: false }, forwards: [],
        },
      });
    }
    await env.app.open(page);
    await page.getByRole('button', { name: 'Connect to deska' }).click();
    await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 30_000 });
    await env.app.open(other);
    await other.getByRole('button', { name: 'Connect to deskb' }).click();
    await expect(other.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 30_000 });
    await chooseLossless(page);
    await chooseLossless(other);
    // Both live at the same time: each canvas is exactly its own server's screen.
    await expect.poll(() => canvasSize(page)).toEqual({ w: 800, h: 600 });
    await expect.poll(() => canvasSize(other)).toEqual({ w: 640, h: 480 });
    await expect.poll(() => pixelsUnlikeServer(page, env, a.display), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => pixelsUnlikeServer(other, env, b.display), { timeout: 30_000 }).toBe(0);

    // The toolbar's "New window": a third page straight onto desktop A, with a ticket of its own.
    const opened = context.waitForEvent('page');
    await page.getByTestId('viewer-new-window').click();
    const third = await opened;
    try {
      await expect(third.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 30_000 });
      await chooseLossless(third);
      await expect.poll(() => canvasSize(third)).toEqual({ w: 800, h: 600 });
      await expect.poll(() => pixelsUnlikeServer(third, env, a.display), { timeout: 30_000 }).toBe(0);
      // The first viewer is still live beside it.
      await expect(page.getByTestId('viewer-phase')).toHaveText('connected');
      await expect.poll(() => pixelsUnlikeServer(page, env, a.display), { timeout: 30_000 }).toBe(0);
    } finally {
      await third.close();
    }
  } finally {
    await other.close();
    await a.stop();
    await b.stop();
  }
});

test('a spanning viewer (its address ends in /span, as "Span monitors" opens it): no chrome, the desktop at one screen per desk monitor at 1:1, the saved choices untouched; Ctrl+Alt+Shift+F closes it', async ({ page, env, context }) => {
  test.setTimeout(180_000);
  const xvnc = await startXvnc({ geometry: '800x600' });
  try {
    const profileId = await viewXvnc(page, env, 'spanning', xvnc.display);
    // A browser cannot put one window over several monitors: only the Electron shell (app.displays) offers it.
    await expect(page.getByTestId('viewer-span')).toHaveCount(0);

    // The spanning window's address: this viewer's own (its "New window"), with /span.
    const plain = context.waitForEvent('page');
    await page.getByTestId('viewer-new-window').click();
    const second = await plain;
    const address = second.url();
    await second.close();
    expect(address).toMatch(/#viewer\/[^/]+\/[^/]+\/\d+$/);
    const opened = context.waitForEvent('page');
    await page.evaluate((url) => { window.open(`${url}/span`, '_blank'); }, address);
    const span = await opened;
    try {
      await expect(span.locator('section.viewer')).toHaveAttribute('data-phase', 'connected', { timeout: 30_000 });
      await expect(span.getByTestId('span-chip')).toBeVisible();
      await expect(span.locator('.topbar')).toBeHidden();
      await expect(span.getByRole('toolbar')).toBeHidden();
      // The desk's monitors as this browser knows them (the Window Management API, or this window's screen).
      const desk = await span.evaluate(() => ({ width: window.screen.width, height: window.screen.height }));
      await expect(span.getByTestId('span-chip')).toContainText('Spanning 1 monitor');
      // The server's own RandR monitors are the desk's, and the framebuffer is exactly their size, drawn 1:1.
      await expect.poll(() => serverMonitors(env, xvnc.display), { timeout: 30_000, message: 'RandR monitors on the server' }).toEqual([{ x: 0, y: 0, ...desk }]);
      await expect.poll(() => canvasSize(span), { timeout: 30_000 }).toEqual({ w: desk.width, h: desk.height });
      const drawn = await span.locator('[data-testid="vnc-screen"] canvas').first().evaluate((c) => ({ css: Math.round(c.getBoundingClientRect().width), px: (c as HTMLCanvasElement).width }));
      expect(drawn.css).toBe(drawn.px);
      // The server keeps its saved choices: the Screens choice and the profile's scaling are as they were.
      expect(await span.evaluate((id) => localStorage.getItem(`gpu-desk.viewer.screens.${id}`), profileId)).not.toBe('monitors');
      expect((await env.app.invoke('profiles.list', {})).find((p) => p.id === profileId)!.viewer.scaling).toBe('fit');
      // The way out: the shortcut closes the spanning window; the viewer that opened it stays live.
      const closed = span.waitForEvent('close');
      await span.locator('[data-testid="vnc-screen"]').click({ position: { x: 5, y: 40 } });
      // The window closes on the key going down, so Playwright's key-up may find no page: only that error is expected.
      const pressed = span.keyboard.press('Control+Alt+Shift+KeyF').then(() => null, (e: Error) => e);
      await closed;
      const err = await pressed;
      if (err && !/closed/.test(err.message)) throw err;
      await expect(page.getByTestId('viewer-phase')).toHaveText('connected');
      // The server page says what the SSH login took, by phase, from the core's own record of it.
      const login = (await env.app.invoke('connections.list', {})).find((c) => c.profileId === profileId)?.login;
      expect(login?.totalMs).toBeGreaterThan(0);
      expect(login!.handshakeMs + login!.authMs).toBeLessThanOrEqual(login!.totalMs + 0.001);
      await page.getByRole('button', { name: 'Back to the server' }).click();
      await expect(page.getByTestId('server-status')).toHaveAttribute('title', /^SSH login took [\d.]+ ms: key exchange [\d.]+ ms, authentication [\d.]+ ms$/);
    } finally {
      if (!span.isClosed()) await span.close();
    }
  } finally {
    await xvnc.stop();
  }
});
