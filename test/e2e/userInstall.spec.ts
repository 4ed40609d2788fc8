/**
 * Issue 42 in the app: the set-up wizard on a server where the account has no sudo (test/bed/freshServer.ts:
 * a fresh Debian 12 whose administrator installed only a GPU driver, the account in no administrator's
 * group), as a user meets it, in English and in Chinese: add the server, connect, open Set-up, read a plan
 * that installs into the home and needs no administrator (its prefix and disk space shown), apply it with
 * no password asked, every step done. In English the desktop then starts from the home install and a 3D
 * program under the user's vglrun is drawn in the viewer exactly as the server's own screenshot shows.
 */
import path from 'node:path';
import type { Page } from '@playwright/test';
import { differingPixels, isRoot, startFreshServer, startPackageMirror, type FreshServer, type PackageMirror } from '../bed';
import { desktopProcess, screenOf, xauthorityOnDesk } from '../bed/userDesk';
import { expect, test } from './fixtures';
import { canvasRgb, canvasSize, chooseLossless } from './viewerPixels';

const STEPS = ['user-turbovnc', 'user-virtualgl', 'user-deps', 'user-window-manager', 'user-env'];
const PREFIX = '~/.local/share/gpu-desk/turbovnc-3.3_virtualgl-3.1.4';

interface Words { add: string; name: string; host: string; port: string; user: string; auth: string; keyFile: string; display: string; geometry: string; save: string; connect: (n: string) => string; accept: string; home: RegExp }
const WORDS: Record<'en' | 'zh-CN', Words> = {
  en: {
    add: 'Add server', name: 'Name', host: 'Host', port: 'Port', user: 'User', auth: 'Authentication', keyFile: 'Key file', display: 'Display', geometry: 'Geometry', save: 'Save',
    connect: (n) => `Connect to ${n}`, accept: 'Accept and save',
    home: new RegExp(`Installs into your home \\(${PREFIX.replace(/[.]/g, '\\.')}\\); no administrator needed\\. About \\d+ MB of disk space\\.`),
  },
  'zh-CN': {
    add: '添加服务器', name: '名称', host: '主机', port: '端口', user: '用户', auth: '身份验证', keyFile: '密钥文件', display: 'X 显示', geometry: '分辨率', save: '保存',
    connect: (n) => `连接到 ${n}`, accept: '接受并保存',
    home: new RegExp(`安装到你的主目录（${PREFIX.replace(/[.]/g, '\\.')}）；不需要管理员。约占 \\d+ MB 磁盘空间。`),
  },
};

async function addAndConnect(page: Page, server: FreshServer, name: string, w: Words): Promise<void> {
  await page.getByRole('button', { name: w.add }).click();
  const dlg = page.getByRole('dialog', { name: w.add });
  await dlg.getByLabel(w.name, { exact: true }).fill(name);
  await dlg.getByLabel(w.host, { exact: true }).fill(server.host);
  await dlg.getByLabel(w.port, { exact: true }).fill(String(server.port));
  await dlg.getByLabel(w.user, { exact: true }).fill(server.user);
  await dlg.getByLabel(w.auth, { exact: true }).selectOption('key-file');
  await dlg.getByLabel(w.keyFile, { exact: true }).fill(server.userKeyPath);
  await dlg.getByLabel(w.display, { exact: true }).fill('');
  await dlg.getByLabel(w.geometry, { exact: true }).fill('1024x768');
  await dlg.getByRole('button', { name: w.save }).click();
  await expect(page.getByTestId(`server-${name}`)).toBeVisible();
  await page.getByRole('button', { name: w.connect(name) }).click();
  const prompt = page.getByTestId('host-key-prompt');
  await expect(prompt.getByTestId('fingerprint')).toHaveText(server.hostKeyFingerprint, { timeout: 60_000 });
  await prompt.getByRole('button', { name: w.accept }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible({ timeout: 60_000 });
}

/** Plan review and apply: no sudo anywhere, the home prefix and disk space shown, every step done. */
async function planAndApply(page: Page, server: FreshServer, mirror: PackageMirror, w: Words): Promise<void> {
  await page.locator('#tab-setup').click();
  const wizard = page.getByTestId('setup-wizard');
  await wizard.getByTestId('setup-options').locator('summary').click();
  await wizard.getByTestId('setup-mirror').fill(mirror.url);
  await wizard.getByTestId('setup-make-plan').click();
  await expect(wizard.locator('ol.plan > li')).toHaveCount(STEPS.length, { timeout: 120_000 });
  await expect(wizard.getByText(w.home).first()).toBeVisible();
  await expect(wizard.getByText(`${mirror.url}/SHA256SUMS`).first()).toBeAttached();
  await wizard.getByTestId('setup-consent').check();
  await wizard.getByTestId('setup-continue').click();
  // Nothing needs root: no password is asked for.
  await expect(wizard.getByTestId('setup-apply')).toBeVisible();
  await expect(wizard.getByTestId('setup-sudo-password')).toHaveCount(0);
  await wizard.getByTestId('setup-apply').click();
  const result = wizard.getByTestId('setup-result');
  await expect(result).toBeVisible({ timeout: 25 * 60_000 });
  await expect(result).toHaveAttribute('data-ok', 'true');
  for (const id of STEPS) await expect(wizard.getByTestId(`step-${id}`)).toHaveClass(/\bst-done\b/);
  // What the wizard says was done is in the home: the current link names the versioned install.
  expect(server.rootSh(`readlink ${server.home}/.local/share/gpu-desk/current`).out.trim()).toBe(path.basename(PREFIX));
}

test.describe('set-up wizard on a server where the account has no sudo', () => {
  test('in English: plan into the home, no administrator, applied; a desktop from the home install draws glxspheres64 under vglrun exactly as the server shows it', async ({ page, env }) => {
    test.skip(!isRoot, 'a chroot server needs root');
    test.setTimeout(30 * 60_000);
    const [server, mirror] = await Promise.all([startFreshServer({ account: 'no-sudo', packages: 'gpu-driver' }), startPackageMirror()]);
    await env.app.open(page);
    await addAndConnect(page, server, 'nosudo', WORDS.en);
    await planAndApply(page, server, mirror, WORDS.en);
    await env.shot(page, 'setup-user-install-result');

    await page.locator('#tab-sessions').click();
    await page.getByLabel('Size').fill('1024x768');
    await page.getByRole('button', { name: 'Start desktop' }).click();
    await expect(page.getByTestId('started-display')).toBeVisible({ timeout: 120_000 });
    const display = Number(await page.getByTestId('started-display').getAttribute('data-display'));
    await page.getByTestId(`session-${display}`).getByRole('button', { name: `View display ${display}` }).click();
    await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 60_000 });
    await expect.poll(() => canvasSize(page), { timeout: 60_000 }).toEqual({ w: 1024, h: 768 });
    await chooseLossless(page);
    const full = { x: 0, y: 0, w: 1024, h: 768 };

    await expect.poll(() => desktopProcess(server, display, 'openbox') !== null, { timeout: 60_000, message: 'openbox (from the home install) on the desktop' }).toBe(true);
    const wmEnv = desktopProcess(server, display, 'openbox')!.env;
    const shot = () => screenOf(server, display, full, xauthorityOnDesk(server, wmEnv));
    const before = await shot();
    // By its bare name, as the user types it in the desktop's terminal: the home install's vglrun is on PATH.
    server.runAs(wmEnv, `vglrun -d egl glxspheres64 -i -w 500x400 > ${server.home}/spheres.log 2>&1 &`);
    await expect.poll(async () => differingPixels(await shot(), before), { timeout: 120_000, message: 'the spheres on the server\'s screen' }).toBeGreaterThan(0);
    await expect.poll(async () => {
      const shown = await canvasRgb(page, full);
      return shown ? differingPixels(shown, await shot()) : -1;
    }, { timeout: 60_000, message: 'pixels the viewer draws unlike the server\'s own screenshot' }).toBe(0);
    await env.shot(page, 'setup-user-install-desktop');
  });
});

test.describe('set-up wizard on a server where the account has no sudo, in Chinese', () => {
  test.use({ locale: 'zh-CN' });
  test('in Chinese: the plan says it installs into the home with no administrator, and applies with no password', async ({ page, env }) => {
    test.skip(!isRoot, 'a chroot server needs root');
    test.setTimeout(30 * 60_000);
    const [server, mirror] = await Promise.all([startFreshServer({ account: 'no-sudo', packages: 'gpu-driver' }), startPackageMirror()]);
    await env.app.open(page);
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
    await addAndConnect(page, server, 'nosudo-zh', WORDS['zh-CN']);
    await planAndApply(page, server, mirror, WORDS['zh-CN']);
    await env.shot(page, 'setup-user-install-result-zh');
  });
});
