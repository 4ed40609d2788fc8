import path from 'node:path';
import type { Page } from '@playwright/test';
import { connectSsh, type SshConnection } from '../../src/core/ssh/connection';
import { expect, test, type Env } from './fixtures';
import { canvasSize } from './viewerPixels';
import { startAndView } from './desktopSteps';
import { makePng } from '../helpers/png';

/**
 * Automatic clipboard sharing, both ways, against real parts: a TurboVNC desktop started through the
 * app on the bed's sshd, Chromium's own clipboard on the desk side (permissions granted on the
 * context), Debian's xclip on the server, checked over the bed's SSH as the session's user.
 */

async function bedLogin(env: Env): Promise<SshConnection> {
  return connectSsh({
    destination: `${env.bed.user}@127.0.0.1`, port: env.bed.port, identityFiles: [env.bed.userKeyPath], agent: false, sshConfigPath: null,
    userKnownHostsFiles: [], appKnownHostsFile: path.join(env.home, 'clip_known_hosts'), callbacks: { onUnknownHostKey: async () => 'accept-once' },
  });
}

/** The server's clipboard as `target` (base64, since exec's output is text), or null when it has none. */
async function serverClip(conn: SshConnection, display: number, target: string): Promise<Buffer | null> {
  const r = await conn.exec(`DISPLAY=:${display} xclip -o -selection clipboard -t ${target} | base64 -w0`, { timeoutMs: 30_000 });
  return r.stdout ? Buffer.from(r.stdout, 'base64') : null;
}

async function putServerClip(conn: SshConnection, display: number, target: string, data: Buffer): Promise<void> {
  // xclip's background owner gets /dev/null for its descriptors, or this exec would never end.
  const r = await conn.exec(`f=$(mktemp); base64 -d >"$f"; DISPLAY=:${display} xclip -selection clipboard -t ${target} -i "$f" </dev/null >/dev/null 2>&1; rm -f "$f"`, { stdin: data.toString('base64'), timeoutMs: 30_000 });
  expect(r.code).toBe(0);
}

/** The desk's clipboard: its PNG (bytes, base64) when it holds one, else its text. */
function deskClip(page: Page): Promise<{ png: string } | { text: string }> {
  return page.evaluate(async () => {
    const items = await navigator.clipboard.read();
    for (const it of items) {
      if (it.types.includes('image/png')) {
        const b = new Uint8Array(await (await it.getType('image/png')).arrayBuffer());
        let s = '';
        for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
        return { png: btoa(s) };
      }
    }
    return { text: await navigator.clipboard.readText() };
  });
}

/** Decoded RGBA pixels of a PNG, as the page's own decoder gives them (no colour conversion, no premultiplying). */
function pixelsOf(page: Page, png: Buffer): Promise<{ w: number; h: number; hex: string }> {
  return page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const bmp = await createImageBitmap(new Blob([bytes], { type: 'image/png' }), { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
    const c = new OffscreenCanvas(bmp.width, bmp.height);
    const g = c.getContext('2d')!;
    g.drawImage(bmp, 0, 0);
    const d = g.getImageData(0, 0, bmp.width, bmp.height).data;
    const h = new Uint8Array(await crypto.subtle.digest('SHA-256', d));
    return { w: bmp.width, h: bmp.height, hex: Array.from(h, (x) => x.toString(16).padStart(2, '0')).join('') };
  }, png.toString('base64'));
}

function writeDeskPng(page: Page, png: Buffer): Promise<void> {
  return page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    await navigator.clipboard.write([new ClipboardItem({ 'image/png': new Blob([bytes], { type: 'image/png' }) })]);
  }, png.toString('base64'));
}

test('clipboard: text and PNG images go both ways on their own while the viewer has focus; the setting stops it; a too-large image says so', async ({ page, env }) => {
  test.setTimeout(420_000);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  const { display, row } = await startAndView(page, env, 'clip', '800x600');
  await expect.poll(() => canvasSize(page)).toEqual({ w: 800, h: 600 });
  const screen = page.getByTestId('vnc-screen');
  const canvas = screen.locator('canvas');
  const note = page.getByTestId('clip-note');
  /** The viewer loses focus to the toolbar and gains it again: a sharing round. */
  const refocus = async () => {
    await page.getByRole('toolbar', { name: 'Viewer controls' }).getByRole('button', { name: 'Clipboard' }).focus();
    await canvas.focus();
  };
  const conn = await bedLogin(env);
  const tag = Date.now().toString(36);
  try {
    await canvas.focus();

    // Text, desk → server: copied on the desk while the viewer has focus, it is the server's clipboard.
    const t1 = `desk text ${tag} 中文`;
    await page.evaluate((t) => navigator.clipboard.writeText(t), t1);
    await expect.poll(async () => (await serverClip(conn, display, 'UTF8_STRING'))?.toString('utf8'), { timeout: 30_000, message: 'the server\'s clipboard after a desk copy' }).toBe(t1);

    // Text, server → desk: copied on the server, it is the desk's clipboard (ServerCutText).
    const t2 = `server text ${tag}`;
    await putServerClip(conn, display, 'UTF8_STRING', Buffer.from(t2));
    await expect.poll(() => deskClip(page), { timeout: 30_000, message: 'the desk\'s clipboard after a server copy' }).toEqual({ text: t2 });

    // Image, desk → server. Chromium re-encodes every PNG it puts on its clipboard (its sanitising
    // decode and encode), so the server must hold exactly the bytes the desk's clipboard holds, and
    // those decode to exactly the pixels of the image that was copied.
    const png1 = makePng(123, 77, 4);
    await writeDeskPng(page, png1);
    await expect(note).toContainText('copied to the server\'s clipboard', { timeout: 30_000 });
    const desk1 = await deskClip(page);
    expect('png' in desk1).toBe(true);
    const deskBytes = Buffer.from((desk1 as { png: string }).png, 'base64');
    const onServer = await serverClip(conn, display, 'image/png');
    expect(onServer?.equals(deskBytes), 'the server\'s image/png is byte for byte the desk\'s clipboard').toBe(true);
    expect(await pixelsOf(page, onServer!)).toEqual(await pixelsOf(page, png1));
    test.info().annotations.push({ type: 'desk PNG re-encoded by Chromium', description: String(!deskBytes.equals(png1)) });

    // Image, server → desk: put there with xclip, it comes to the desk when the viewer gains focus again.
    const png2 = makePng(64, 90, 11);
    await putServerClip(conn, display, 'image/png', png2);
    await refocus();
    await expect(note).toContainText('copied to this computer\'s clipboard', { timeout: 30_000 });
    const desk2 = await deskClip(page);
    expect('png' in desk2, 'the desk\'s clipboard holds a PNG').toBe(true);
    const desk2Bytes = Buffer.from((desk2 as { png: string }).png, 'base64');
    expect(await pixelsOf(page, desk2Bytes)).toEqual(await pixelsOf(page, png2));
    // The explicit action brings it again, and says so (a new note: its number moves on).
    const before = Number(await note.getAttribute('data-n'));
    await page.getByRole('button', { name: 'Clipboard', exact: true }).click();
    await page.getByTestId('clip-image-from-server').click();
    await expect(note).toHaveAttribute('data-n', String(before + 1), { timeout: 30_000 });
    await expect(note).toContainText('copied to this computer\'s clipboard');

    // Too large: a picture of noise, whose PNG the browser cannot make small, is refused with the limit named.
    await page.evaluate(async () => {
      const c = new OffscreenCanvas(2600, 2600);
      const g = c.getContext('2d')!;
      const img = g.createImageData(2600, 2600);
      crypto.getRandomValues(img.data.subarray(0, 65536));
      for (let i = 65536; i < img.data.length; i += 65536) img.data.copyWithin(i, 0, 65536);
      for (let i = 0; i < img.data.length; i += 4) { img.data[i] ^= (i >> 10) & 0xff; img.data[i + 3] = 255; }
      g.putImageData(img, 0, 0);
      await navigator.clipboard.write([new ClipboardItem({ 'image/png': await c.convertToBlob({ type: 'image/png' }) })]);
    });
    await canvas.focus();
    await expect(note).toContainText('images up to 16 MiB are shared: not copied', { timeout: 60_000 });
    expect((await serverClip(conn, display, 'image/png'))?.equals(png2)).toBe(true);

    // View only shares nothing (its viewer sends nothing at all), and sharing comes back without it.
    const viewOnly = page.getByLabel('View only', { exact: true });
    await viewOnly.check();
    await expect(screen).toHaveAttribute('data-clip-sync', 'off');
    await viewOnly.uncheck();
    await expect(screen).toHaveAttribute('data-clip-sync', /^\d+$/);

    // The setting off: a server copy shows in the panel but stays off the desk; the desk's copy waits.
    // (Had t3 gone to the server at the refocus, the viewer would count it as sent, and turning the
    // setting on again would not send it over the server's later t4: the last check would fail.)
    await page.getByTestId('clip-auto').uncheck();
    await expect(screen).toHaveAttribute('data-clip-sync', 'off');
    const t3 = `desk text while off ${tag}`;
    await page.evaluate((t) => navigator.clipboard.writeText(t), t3);
    await refocus();
    const t4 = `server text while off ${tag}`;
    await putServerClip(conn, display, 'UTF8_STRING', Buffer.from(t4));
    await expect(page.getByRole('textbox', { name: 'Remote clipboard', exact: true })).toHaveValue(t4, { timeout: 30_000 });
    expect(await deskClip(page)).toEqual({ text: t3 });
    // On again: the desk's copy goes at the next round.
    await page.getByTestId('clip-auto').check();
    await refocus();
    await expect.poll(async () => (await serverClip(conn, display, 'UTF8_STRING'))?.toString('utf8'), { timeout: 30_000 }).toBe(t3);
  } finally {
    await conn.close();
  }

  await page.getByRole('button', { name: 'Back to the server' }).click();
  await row.getByRole('button', { name: `Stop display ${display}` }).click();
  await page.getByRole('dialog', { name: `Stop display :${display}?` }).getByRole('button', { name: 'Stop desktop' }).click();
  await expect(page.getByTestId(`session-${display}`)).toHaveCount(0, { timeout: 180_000 });
});
