import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { makePng } from '../../helpers/png';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { killSession, startSession } from '../../../src/core/remote/vncSessions';
import { ClipboardImages } from '../../../src/core/app/services/clipboardImages';
import { CLIPBOARD_IMAGE_MAX_BYTES, CLIPBOARD_IMAGE_PART_BYTES } from '../../../src/shared/clipboardImage';

/**
 * Image copy and paste against real parts: a TurboVNC desktop behind the bed's sshd, Debian's xclip
 * on its display, the service's scripts over the connection. The server side is checked with xclip
 * itself, run over the same SSH login as the session's user.
 */
let bed: SshdBed;
let conn: SshConnection;
let display: number;
const logs: string[] = [];
let svc: ClipboardImages;

beforeAll(async () => {
  bed = await startSshd();
  conn = await connectSsh(bedOptions(bed));
  const s = await startSession(conn, { geometry: '640x480', windowManager: '/usr/bin/xterm' });
  display = s.display;
  svc = new ClipboardImages({ target: () => ({ conn, display }), log: (l) => logs.push(l) });
}, 120_000);
afterAll(async () => {
  if (display !== undefined) await killSession(conn, display).catch(() => {});
  await conn?.close();
  await cleanupAll();
});

/** The SHA-256 of the server's clipboard as image/png, read by xclip there (exec's output is text, and capped). */
async function serverPngHash(): Promise<string> {
  const r = await conn.exec(`DISPLAY=:${display} xclip -o -selection clipboard -t image/png | sha256sum`, { timeoutMs: 30_000 });
  return r.stdout.split(' ')[0];
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Puts bytes on the server's clipboard as image/png with xclip (its background owner writes to /dev/null). */
async function putServerPng(png: Buffer): Promise<void> {
  const r = await conn.exec(`f=$(mktemp); base64 -d >"$f"; DISPLAY=:${display} xclip -selection clipboard -t image/png -i "$f" >/dev/null 2>&1 </dev/null; rm -f "$f"`, { stdin: png.toString('base64'), timeoutMs: 30_000 });
  expect(r.code).toBe(0);
}

async function send(png: Buffer) {
  let r;
  for (let off = 0; off === 0 || off < png.length; off += CLIPBOARD_IMAGE_PART_BYTES) {
    const part = png.subarray(off, off + CLIPBOARD_IMAGE_PART_BYTES).toString('base64');
    r = await svc.handlers()['clipboard.imageToServer']({ viewerId: 'v1', part, first: off === 0, last: off + CLIPBOARD_IMAGE_PART_BYTES >= png.length });
    if (!r.ok) return r;
  }
  return r!;
}

function xclipOwners(): Promise<string[]> {
  return new Promise((resolve) => {
    execFile('pgrep', ['-u', bed.user, '-a', 'xclip'], (_e, out) => resolve(out.split('\n').filter((l) => l.includes('image/png') && l.includes('-i'))));
  });
}

describe('clipboard images over SSH', () => {
  it('a PNG from the desk is the server clipboard\'s image/png, byte for byte, and the call returns while xclip keeps owning it', async () => {
    const png = makePng(97, 61, 3);
    const r = await send(png);
    expect(r).toEqual({ ok: true, bytes: png.length });
    // xclip serves the selection from the background: the call came back, the owner is still there.
    expect((await xclipOwners()).length).toBeGreaterThan(0);
    expect(await serverPngHash()).toBe(sha256(png));
  }, 60_000);

  it('an image sent in several parts arrives whole', async () => {
    const png = makePng(64, 64, 5, CLIPBOARD_IMAGE_PART_BYTES * 2 + 123);
    expect((await send(png)).ok).toBe(true);
    expect(await serverPngHash()).toBe(sha256(png));
  }, 120_000);

  it('the server\'s PNG comes to the desk with the same bytes', async () => {
    const png = makePng(33, 44, 9);
    await putServerPng(png);
    const r = await svc.handlers()['clipboard.imageFromServer']({ viewerId: 'v1' });
    expect(r.ok).toBe(true);
    expect(r.ok && Buffer.from(r.png!, 'base64').equals(png)).toBe(true);
  }, 60_000);

  it('a server clipboard with only text says noImage', async () => {
    await conn.exec(`printf 'just text' | DISPLAY=:${display} xclip -selection clipboard -i >/dev/null 2>&1`, { timeoutMs: 30_000 });
    expect(await svc.handlers()['clipboard.imageFromServer']({ viewerId: 'v1' })).toEqual({ ok: false, why: 'noImage' });
  }, 60_000);

  it('over 16 MiB goes neither way, and says tooLarge', async () => {
    const big = makePng(16, 16, 1, CLIPBOARD_IMAGE_MAX_BYTES);
    const to = await send(big);
    expect(to.ok).toBe(false);
    expect(!to.ok && to.why).toBe('tooLarge');
    await putServerPng(big);
    expect(await svc.handlers()['clipboard.imageFromServer']({ viewerId: 'v1' })).toEqual({ ok: false, why: 'tooLarge' });
  }, 180_000);

  it('a part that is not the first of an image, or bytes that are no PNG, are refused with a one-line error', async () => {
    const h = svc.handlers();
    await expect(h['clipboard.imageToServer']({ viewerId: 'other', part: 'AAAA', first: false, last: true })).rejects.toThrow(/without its first part/);
    await expect(h['clipboard.imageToServer']({ viewerId: 'v1', part: Buffer.from('GIF89a not a png').toString('base64'), first: true, last: true })).rejects.toThrow(/not a PNG/);
  });

  it('logs say sizes only: no byte of any image is in them', () => {
    expect(logs.length).toBeGreaterThan(0);
    for (const l of logs) {
      expect(l).toMatch(/^clipboard: an image of \d+ bytes (went to|came from) display :\d+$/);
    }
  });
});
