import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { untranslatedWords } from '../i18n/terms';
import { registerCleanup, startSshd } from '../bed';
import { startDelayProxy } from '../bed/delayProxy';

/**
 * The main flow with the browser (so the app's "System" language) in Simplified Chinese: every
 * screen it visits shows Chinese only, except product terms and what the user or the server
 * itself supplied (names, addresses, versions, the server's own messages). A missing catalogue key
 * fails the spec through the fixture.
 */
test.use({ locale: 'zh-CN' });

/** A web service on the bed machine for the server's saved forward to reach. */
async function webServer(): Promise<number> {
  const web = http.createServer((_req, res) => res.end('notebook here'));
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', () => r()));
  registerCleanup(() => new Promise<void>((r) => web.close(() => r())));
  return (web.address() as net.AddressInfo).port;
}

/** Drops a file of `size` zero bytes made in the page on `testId`, as a drag from the desktop does. */
async function dropFile(page: Page, testId: string, name: string, size: number): Promise<void> {
  const dt = await page.evaluateHandle(({ name, size }) => {
    const d = new DataTransfer();
    d.items.add(new File([new Uint8Array(size)], name));
    return d;
  }, { name, size });
  await page.getByTestId(testId).dispatchEvent('drop', { dataTransfer: dt });
}

/** Names the page shows that came from the user or the server: the rows' own test ids carry them. */
async function namesIn(page: Page, prefix: string): Promise<string[]> {
  return page.locator(`[data-testid^="${prefix}"]`).evaluateAll((els, p) => els.map((e) => e.getAttribute('data-testid')!.slice(p.length)), prefix);
}

/** Every string in a value from the server (its report, its sessions): user data, shown as it is. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => strings(x, out));
  return out;
}

async function expectNoEnglish(page: Page, where: string, data: string[], names: string[] = []): Promise<void> {
  let text = await page.locator('body').innerText();
  // Names users gave (servers saved by the worker's earlier specs: "desk", "files") are cut only as whole
  // words: "desk" inside a quoted "gpu-desk keys" command is not a name.
  const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const n of names.filter((x) => x.length > 1)) text = text.replace(new RegExp(`(?<![\\w.~/-])${escape(n)}(?![\\w.~/-])`, 'g'), ' ');
  // Commands, paths and fingerprints are shown as code, the same in every language; servers saved by
  // the worker's earlier specs (the fixture's data dir is per worker) show names users gave them.
  const saved = await page.locator('li.server-card[data-testid^="server-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice('server-'.length)));
  data = [...data, ...saved, ...(await page.locator('code, pre, .mono').allInnerTexts())];
  // Longest first, so a value inside another is not cut out of it first.
  for (const d of [...new Set(data)].filter((x) => x.length > 1).sort((a, b) => b.length - a.length)) text = text.split(d).join(' ');
  expect(untranslatedWords(text), `English left on the ${where} screen`).toEqual([]);
}

test('the main flow in Simplified Chinese: servers, add, connect, host key, report, GPUs, desktops, viewer, forwards, set-up plan, files, upload, keys', async ({ page, env }) => {
  test.setTimeout(600_000);
  // Its own sshd: a host key that no earlier spec of this worker has accepted, so the unknown-host prompt shows.
  const bed = await startSshd({ extraConfig: [`SetEnv PATH=${path.resolve(__dirname, 'shims')}:/usr/local/bin:/usr/bin:/bin XDG_CONFIG_HOME=${env.desktop.xdgConfigHome}`] });
  const name = 'zh-bed';
  const webPort = await webServer();
  const data: string[] = [name, bed.user, String(bed.port), bed.hostKeyFingerprint, `0:127.0.0.1:${webPort}`];
  await env.app.open(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  await expect(page.getByRole('heading', { name: '服务器', level: 1 })).toBeVisible();
  await expectNoEnglish(page, 'servers (before adding)', data);

  await page.getByRole('button', { name: '添加服务器' }).click();
  const dlg = page.getByRole('dialog', { name: '添加服务器' });
  await dlg.getByLabel('名称', { exact: true }).fill(name);
  await dlg.getByLabel('主机', { exact: true }).fill('127.0.0.1');
  await dlg.getByLabel('端口', { exact: true }).fill(String(bed.port));
  await dlg.getByLabel('用户', { exact: true }).fill(bed.user);
  await dlg.getByLabel('身份验证', { exact: true }).selectOption('key-file');
  await dlg.getByLabel('密钥文件', { exact: true }).fill(bed.userKeyPath);
  await dlg.getByLabel('分辨率', { exact: true }).fill('1024x768');
  await dlg.getByLabel('额外的端口转发', { exact: true }).fill(`0:127.0.0.1:${webPort}`);
  await expectNoEnglish(page, 'add server', data);
  await env.shot(page, 'zh-CN-add-server');
  await dlg.getByRole('button', { name: '保存' }).click();
  await expect(page.getByTestId(`server-${name}`)).toContainText('未连接');
  await expectNoEnglish(page, 'servers', data);
  await env.docShot(page, 'servers-zh-CN');
  await env.shot(page, 'zh-CN-servers');

  await page.getByRole('button', { name: `连接到 ${name}` }).click();
  const prompt = page.getByTestId('host-key-prompt');
  await expect(prompt.getByTestId('fingerprint')).toHaveText(bed.hostKeyFingerprint);
  await expect(prompt).toContainText('这是第一次连接');
  const keyType = (await prompt.locator('dd').first().innerText()).trim();
  await expectNoEnglish(page, 'host key', [...data, keyType]);
  await env.shot(page, 'zh-CN-host-key');
  await prompt.getByRole('button', { name: '接受并保存' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();

  // What the server reports is its own data (OS, versions, renderer, its messages): left as it is.
  const profileId = (await env.app.invoke('profiles.list', {})).find((p) => p.name === name)!.id;
  const connectionId = (await env.app.invoke('connections.list', {})).find((c) => c.profileId === profileId && c.state === 'ready')!.id;
  const report = await env.app.invoke('server.probe', { connectionId });
  const serverData = [...data, ...strings({ ...report, findings: report.findings.map((f) => f.text?.params ?? {}) })];
  await page.getByRole('tab', { name: /服务器报告/ }).click();
  await expect(page.getByTestId('probe-report')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('probe-report')).toContainText('检测结果');
  for (const f of report.findings) expect(f.text, `finding ${f.code} carries its catalogue keys`).toBeDefined();
  await expectNoEnglish(page, 'server report', serverData);
  await env.shot(page, 'zh-CN-server-report');

  await page.getByRole('tab', { name: 'GPU', exact: true }).click();
  await expect(page.getByTestId('gpu-0')).toContainText('驱动');
  const gpus = await env.app.invoke('server.gpus', { connectionId });
  await expectNoEnglish(page, 'GPUs', [...serverData, ...strings(gpus)]);
  await env.shot(page, 'zh-CN-gpus');

  await page.getByRole('tab', { name: '桌面', exact: true }).click();
  await page.getByLabel('分辨率').fill('1024x768');
  await page.getByLabel('窗口管理器').selectOption(env.desktop.windowManager);
  await page.getByRole('button', { name: '启动桌面' }).click();
  await expect(page.getByTestId('started-display')).toBeVisible({ timeout: 60_000 });
  const display = Number(await page.getByTestId('started-display').getAttribute('data-display'));
  const row = page.getByTestId(`session-${display}`);
  await expect(row).toContainText('仅 localhost');
  const sessions = await env.app.invoke('sessions.list', { connectionId });
  await expectNoEnglish(page, 'desktops', [...serverData, ...strings(sessions)]);
  await env.shot(page, 'zh-CN-desktops');

  await row.getByRole('button', { name: `查看 X 显示 ${display}` }).click();
  await expect(page.getByTestId('viewer-phase')).toHaveAttribute('data-phase', 'connected', { timeout: 30_000 });
  await expect(page.getByTestId('viewer-phase')).toHaveText('已连接');
  await expect(page).toHaveTitle(`${name} X 显示 :${display} — gpu-desk`);
  await page.getByTestId('open-codec').click();
  await expect(page.getByTestId('codec-panel')).toBeVisible();
  await expect(page.getByTestId('hud-fps')).toContainText('帧/秒', { timeout: 20_000 });
  await expectNoEnglish(page, 'viewer', [...serverData, ...strings(sessions)]);
  await env.shot(page, 'zh-CN-viewer');

  await page.getByRole('button', { name: '返回服务器页面' }).click();
  await row.getByRole('button', { name: `停止 X 显示 ${display}` }).click();
  const stop = page.getByRole('dialog', { name: `停止 X 显示 :${display}？` });
  await expectNoEnglish(page, 'stop desktop', serverData);
  await stop.getByRole('button', { name: '停止桌面' }).click();
  await expect(row).toHaveCount(0, { timeout: 30_000 });

  // The saved forward, opened beside the desktop, on the server page's own tab.
  await page.getByRole('tab', { name: '端口转发' }).click();
  const forward = page.getByTestId('forwards-panel').getByTestId(`forward-${webPort}`);
  await expect(forward).toHaveAttribute('data-http', 'yes', { timeout: 60_000 });
  await expectNoEnglish(page, 'forwards', [...serverData, String(webPort)]);
  await env.shot(page, 'zh-CN-forwards');

  // The set-up plan: core's steps and notes in Chinese (the commands stay code).
  await page.getByRole('tab', { name: '配置', exact: true }).click();
  await page.getByTestId('setup-options').locator('summary').click();
  await expectNoEnglish(page, 'set-up options', serverData);
  // The system-wide plan (the bed account is in no administrator's group: gpu-desk would choose the home).
  await page.getByTestId('setup-where').selectOption('system');
  await page.getByTestId('setup-make-plan').click();
  await expect(page.getByTestId('plan-step-gl-libraries').locator('h3')).toContainText('安装 OpenGL 库', { timeout: 60_000 });
  await expect(page.getByTestId('plan-step-vnc-localhost').locator('h3')).toContainText('让 VNC 会话只监听本机');
  const plan = await env.app.invoke('setup.plan', { connectionId, options: { windowManager: 'xfce', userInstall: false } });
  for (const s of plan.steps) expect(s.text, `step ${s.id} carries its catalogue keys`).toBeDefined();
  // Package file names and the values core fills in are data, shown as they are.
  await expectNoEnglish(page, 'set-up plan', [...serverData, plan.distro, ...strings(plan.steps.map((s) => [s.text?.params, s.text?.verify?.source.params])), ...strings(plan.noteTexts)]);
  await env.shot(page, 'zh-CN-setup-plan');

  // Files over a slow link (2 MiB/s), so an upload is still running when the screenshot comes.
  await page.getByRole('button', { name: '断开', exact: true }).click();
  const slow = await startDelayProxy({ targetPort: bed.port, delayMs: 5, rateBytesPerSec: 2 * 1024 * 1024, maxQueuedBytes: 1024 * 1024 });
  registerCleanup(() => slow.stop());
  fs.appendFileSync(path.join(env.home, 'known_hosts'), `${bed.knownHostsLine.replace(`[127.0.0.1]:${bed.port}`, `[127.0.0.1]:${slow.port}`)}\n`);
  const slowName = 'zh-files';
  await page.getByRole('button', { name: '添加服务器' }).click();
  const add = page.getByRole('dialog', { name: '添加服务器' });
  await add.getByLabel('名称', { exact: true }).fill(slowName);
  await add.getByLabel('主机', { exact: true }).fill('127.0.0.1');
  await add.getByLabel('端口', { exact: true }).fill(String(slow.port));
  await add.getByLabel('用户', { exact: true }).fill(bed.user);
  await add.getByLabel('身份验证', { exact: true }).selectOption('key-file');
  await add.getByLabel('密钥文件', { exact: true }).fill(bed.userKeyPath);
  await add.getByRole('button', { name: '保存' }).click();
  await page.getByRole('button', { name: `连接到 ${slowName}` }).click({ timeout: 60_000 });
  await expect(page.getByRole('heading', { name: slowName, level: 1 })).toBeVisible({ timeout: 60_000 });
  await page.getByRole('tab', { name: '文件', exact: true }).click();
  await expect(page.getByTestId('files-path')).not.toHaveText('', { timeout: 60_000 });
  const dir = path.posix.join((await page.getByTestId('files-path').textContent())!, `gd-e2e-zh-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  const owner = fs.statSync(bed.home);
  fs.chownSync(dir, owner.uid, owner.gid);
  registerCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
  await page.getByRole('button', { name: '刷新' }).click();
  await page.getByTestId(`file-${path.posix.basename(dir)}`).getByRole('button').click();
  await expect(page.getByTestId('files-path')).toHaveText(dir);
  const fileData = [...data, slowName, String(slow.port), dir];
  await dropFile(page, 'files-panel', 'notes.txt', 1000);
  const small = page.getByTestId('upload-notes.txt');
  await expect(small).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('file-notes.txt')).toBeVisible();
  await expectNoEnglish(page, 'files', [...fileData, 'notes.txt', ...(await namesIn(page, 'file-'))]);
  await small.getByRole('button', { name: '关闭' }).click();
  await dropFile(page, 'files-panel', 'notes.txt', 10);
  const ask = page.getByTestId('replace-dialog');
  await expect(ask).toBeVisible();
  await expectNoEnglish(page, 'replace a file', [...fileData, 'notes.txt', ...(await namesIn(page, 'file-'))]);
  await env.shot(page, 'zh-CN-replace');
  await ask.getByRole('button', { name: '保留服务器上的文件' }).click();
  await expect(small).toHaveAttribute('data-state', 'skipped');
  expect(fs.statSync(path.join(dir, 'notes.txt')).size).toBe(1000);
  await dropFile(page, 'files-panel', 'dataset.tar', 64 * 1024 * 1024);
  const up = page.getByTestId('upload-dataset.tar');
  await expect.poll(async () => Number(await up.getByTestId('upload-progress').getAttribute('value')), { timeout: 120_000, message: 'bytes acknowledged by the server' }).toBeGreaterThan(1024 * 1024);
  await expectNoEnglish(page, 'upload in progress', [...fileData, 'notes.txt', 'dataset.tar', ...(await namesIn(page, 'file-'))]);
  await env.docShot(page, 'upload-zh-CN');
  await env.shot(page, 'zh-CN-upload');
  await up.getByTestId('upload-cancel').click();
  await expect(up).toHaveAttribute('data-state', 'cancelled', { timeout: 60_000 });
  await page.getByRole('button', { name: '断开', exact: true }).click();

  // Keys: generate one, its row and the remove dialog in Chinese.
  await page.getByTestId('nav-keys').click();
  await expect(page.getByTestId('keys-screen')).toBeVisible();
  const keyName = `zh-key-${process.pid}`;
  await page.getByTestId('key-name').fill(keyName);
  await page.getByTestId('key-generate').click();
  const keyRow = page.getByTestId(`key-${keyName}`);
  await expect(keyRow.getByTestId('key-fingerprint')).toHaveText(/^SHA256:/, { timeout: 60_000 });
  // The remove dialog offers every saved server by the name its user gave it, including those saved by
  // the worker's earlier specs (the fixture's data dir is per worker): user data, like the server cards.
  const savedNames = (await env.app.invoke('profiles.list', {})).map((p) => p.name);
  const keyData = [...data, slowName, keyName, ...(await namesIn(page, 'key-')).filter((n) => !/^(name|generate|import|fingerprint|installed|copy|remove|public)$/.test(n))];
  await expectNoEnglish(page, 'keys', keyData);
  await env.docShot(page, 'keys-zh-CN');
  await env.shot(page, 'zh-CN-keys');
  await keyRow.getByTestId('key-remove').click();
  await expect(page.getByTestId('remove-key-go')).toBeVisible();
  await expectNoEnglish(page, 'remove key', keyData, savedNames);
  await page.getByTestId('remove-key-go').click();
  await expect(keyRow).toHaveCount(0, { timeout: 30_000 });
  await page.locator('header .brand').click();
  await expect(page.getByRole('heading', { name: '服务器', level: 1 })).toBeVisible();

  // The choice in the top bar wins over the system's language, is saved, and "System" gives it back.
  await page.getByLabel('应用语言').selectOption('en');
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  expect(JSON.parse(fs.readFileSync(path.join(env.home, 'settings.json'), 'utf8'))).toMatchObject({ language: 'en' });
  await page.getByLabel('Language of the app').selectOption('system');
  await expect(page.getByRole('heading', { name: '服务器', level: 1 })).toBeVisible();
  for (const n of [name, slowName]) await env.app.invoke('profiles.remove', { id: (await env.app.invoke('profiles.list', {})).find((p) => p.name === n)!.id });
});

