import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { differingPixels, makeTempDir, windowViewable } from '../bed';
import { expect, test } from './fixtures';
import { connectAndStartDesktop, viewDesktop } from './desktopSteps';
import { typeOnRemote } from './typing';
import { canvasSize } from './viewerPixels';
import { RfbWatcher, keysymsOf } from './rfbWatcher';

const BIN = path.resolve(__dirname, '../../bin/gpu-desk.cjs');

/**
 * The server's own screenshot of the whole 800×600 screen with the pointer drawn in: what a view-only
 * viewer is sent (TurboVNC paints the owner's pointer into a view-only client's pixels, so the
 * watcher sees where the owner points).
 */
function screenWithPointer(bedHome: string, display: number): Promise<Buffer> {
  const args = ['-loglevel', 'error', '-f', 'x11grab', '-draw_mouse', '1', '-video_size', '800x600', '-i', `:${display}+0,0`, '-frames:v', '1', '-pix_fmt', 'rgb24', '-f', 'rawvideo', '-'];
  return new Promise((resolve, reject) => {
    execFile('ffmpeg', args, { encoding: 'buffer', maxBuffer: 800 * 600 * 3 + 1024, env: { ...process.env, XAUTHORITY: path.join(bedHome, '.Xauthority') } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`screenshot of :${display} failed: ${stderr.toString().trim() || err.message}`));
      else resolve(stdout);
    });
  });
}

test('Invite to watch…: a view-only one-time password lets a second viewer watch, its keys and clicks change nothing, and a second use is refused; the viewer\'s own View only sends nothing', async ({ page, env }) => {
  test.setTimeout(420_000);
  // A TurboVNC desktop on TCP (another login cannot open this account's 0600 socket).
  const { display, row } = await connectAndStartDesktop(page, env, 'share', '800x600', { transport: 'tcp' });
  await viewDesktop(page, row, display);
  await expect.poll(() => canvasSize(page)).toEqual({ w: 800, h: 600 });
  await expect.poll(() => windowViewable(env.bed.home, display, env.desktop.terminalTitle), { timeout: 30_000 }).toBe(true);
  const canvas = page.locator('[data-testid="vnc-screen"] canvas');
  await canvas.click({ position: { x: 200, y: 150 } });

  // The invite: the command the colleague runs and the password, with TurboVNC's rule for it.
  await page.getByRole('button', { name: 'Invite to watch…' }).click();
  const dlg = page.getByRole('dialog', { name: `Invite someone to watch display :${display}` });
  await dlg.getByRole('button', { name: 'Make a view-only password' }).click();
  await expect(dlg.getByTestId('invite-command')).toHaveText(`gpu-desk tunnel LOGIN@127.0.0.1 -p ${env.bed.port} --display ${display} --no-password`);
  await expect(dlg.getByTestId('invite-expiry')).toContainText('one connection only');
  const password = (await dlg.getByTestId('invite-password').textContent())!.trim();
  expect(password).toMatch(/^\S{8}$/);
  await env.shot(page, 'viewer-invite');
  const command = (await dlg.getByTestId('invite-command').textContent())!;
  await dlg.getByRole('button', { name: 'Close' }).click();

  // The colleague runs exactly that, with their login and their own key and known_hosts.
  const theirs = makeTempDir('gd-colleague-');
  const argv = command.replace('LOGIN@', `${env.bed.user}@`).split(' ').slice(1);
  const tunnel = spawn(process.execPath, [BIN, ...argv, '-i', env.bed.userKeyPath, '-F', 'none', '--no-agent', '--known-hosts', path.join(theirs, 'kh'), '--accept-new-host-key', '--json'], {
    env: { ...process.env, GPU_DESK_HOME: theirs, HOME: theirs, SSH_AUTH_SOCK: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tag = `gdinv${Date.now().toString(36)}`;
  const file = (what: string) => `/tmp/${tag}-${what}`;
  try {
    const listening = await new Promise<{ local: string }>((resolve, reject) => {
      let out = '';
      let err = '';
      tunnel.stderr.on('data', (d) => (err += d));
      tunnel.stdout.on('data', (d) => {
        out += d;
        const line = out.split('\n').find((x) => x.includes('"listening"'));
        if (line) resolve(JSON.parse(line));
      });
      tunnel.on('exit', (code) => reject(new Error(`gpu-desk tunnel exited ${code}: ${err}`)));
    });
    const port = Number(listening.local.split(':')[1]);

    // The second viewer gets in with the view-only password and draws the desktop exactly as the server shows it.
    const first = await RfbWatcher.connect(port, password);
    expect(first.kind).toBe('connected');
    const watcher = (first as { watcher: RfbWatcher }).watcher;
    expect([watcher.width, watcher.height]).toEqual([800, 600]);
    await expect.poll(async () => { await watcher.refresh(); return differingPixels(watcher.rgb, await screenWithPointer(env.bed.home, display)); }, { message: 'pixels the watcher shows unlike the server' }).toBe(0);

    // Its click and key presses: a command typed into the terminal. The update asked for after them
    // comes once the server has handled them (it takes messages in order).
    watcher.click(200, 150);
    watcher.keys(keysymsOf(`touch ${file('watcher')}\n`));
    await watcher.refresh();
    // The owner types next: its command runs, the watcher's never did (the terminal's line was empty).
    await canvas.click({ position: { x: 200, y: 150 } });
    await typeOnRemote(page, `touch ${file('owner')}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => fs.existsSync(file('owner')), { timeout: 30_000 }).toBe(true);
    expect(fs.existsSync(file('watcher')), 'the view-only viewer\'s keys reached the terminal').toBe(false);
    // Still watching: it sees what the owner typed.
    await expect.poll(async () => { await watcher.refresh(); return differingPixels(watcher.rgb, await screenWithPointer(env.bed.home, display)); }).toBe(0);
    watcher.close();

    // The same password again: refused by TurboVNC (one connection per one-time password).
    const again = await RfbWatcher.connect(port, password);
    expect(again.kind).toBe('refused');
    expect(again.kind === 'refused' && again.reason).toMatch(/one-time password/i);
    test.info().annotations.push({ type: 'second use of the view-only password', description: again.kind === 'refused' ? again.reason : '' });
  } finally {
    tunnel.kill('SIGTERM');
  }

  // The viewer's own View only: keys and clicks in the page reach nothing on the server.
  const viewOnly = page.getByLabel('View only', { exact: true });
  await viewOnly.check();
  await canvas.click({ position: { x: 200, y: 150 } });
  await typeOnRemote(page, `touch ${file('viewonly')}`);
  await page.keyboard.press('Enter');
  await viewOnly.uncheck();
  await canvas.click({ position: { x: 200, y: 150 } });
  await typeOnRemote(page, `touch ${file('after')}`);
  await page.keyboard.press('Enter');
  await expect.poll(() => fs.existsSync(file('after')), { timeout: 30_000 }).toBe(true);
  expect(fs.existsSync(file('viewonly')), 'keys typed in View only reached the terminal').toBe(false);
  for (const w of ['owner', 'after']) fs.rmSync(file(w), { force: true });

  await page.getByRole('button', { name: 'Back to the server' }).click();
  await row.getByRole('button', { name: `Stop display ${display}` }).click();
  await page.getByRole('dialog', { name: `Stop display :${display}?` }).getByRole('button', { name: 'Stop desktop' }).click();
  await expect(page.getByTestId(`session-${display}`)).toHaveCount(0, { timeout: 180_000 });
  await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
});
