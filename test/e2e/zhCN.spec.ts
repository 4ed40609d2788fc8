import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { untranslatedWords } from '../i18n/terms';
import { startSshd } from '../bed';

/**
 * The main flow with the browser (so the app's "System" language) in Simplified Chinese: every
 * screen it visits shows Chinese only, except product terms and what the user or the server
 * itself supplied (names, addresses, versions, the server's own messages). A missing catalogue key
 * fails the spec through the fixture.
 */
test.use({ locale: 'zh-CN' });

const DOC_SHOT = path.resolve(__dirname, '../../docs/images/servers-zh-CN.png');

/** Every string in a value from the server (its report, its sessions): user data, shown as it is. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => strings(x, out));
  return out;
}

async function expectNoEnglish(page: Page, where: string, data: string[]): Promise<void> {
  let text = await page.locator('body').innerText();
  // Commands, paths and fingerprints are shown as code, the same in every language; servers saved by
  // the worker's earlier specs (the fixture's data dir is per worker) show names users gave them.
  const saved = await page.locator('li.server-card[data-testid^="server-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice('server-'.length)));
  data = [...data, ...saved, ...(await page.locator('code, pre, .mono').allInnerTexts())];
  // Longest first, so a value inside another is not cut out of it first.
  for (const d of [...new Set(data)].filter((x) => x.length > 1).sort((a, b) => b.length - a.length)) text = text.split(d).join(' ');
  expect(untranslatedWords(text), `English left on the ${where} screen`).toEqual([]);
}

test('the main flow in Simplified Chinese: servers, add, connect, host key, report, GPUs, desktops, viewer', async ({ page, env }) => {
  test.setTimeout(600_000);
  // Its own sshd: a host key that no earlier spec of this worker has accepted, so the unknown-host prompt shows.
  const bed = await startSshd({ extraConfig: [`SetEnv PATH=${path.resolve(__dirname, 'shims')}:/usr/local/bin:/usr/bin:/bin XDG_CONFIG_HOME=${env.desktop.xdgConfigHome}`] });
  const name = 'zh-bed';
  const data: string[] = [name, bed.user, String(bed.port), bed.hostKeyFingerprint];
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
  await expectNoEnglish(page, 'add server', data);
  await env.shot(page, 'zh-CN-add-server');
  await dlg.getByRole('button', { name: '保存' }).click();
  await expect(page.getByTestId(`server-${name}`)).toContainText('未连接');
  await expectNoEnglish(page, 'servers', data);
  fs.mkdirSync(path.dirname(DOC_SHOT), { recursive: true });
  await page.screenshot({ path: DOC_SHOT });
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

  await row.getByRole('button', { name: `查看显示器 ${display}` }).click();
  await expect(page.getByTestId('viewer-phase')).toHaveAttribute('data-phase', 'connected', { timeout: 30_000 });
  await expect(page.getByTestId('viewer-phase')).toHaveText('已连接');
  await expect(page).toHaveTitle(`${name} 显示器 :${display} — gpu-desk`);
  await page.getByTestId('open-codec').click();
  await expect(page.getByTestId('codec-panel')).toBeVisible();
  await expect(page.getByTestId('hud-fps')).toContainText('帧/秒', { timeout: 20_000 });
  await expectNoEnglish(page, 'viewer', [...serverData, ...strings(sessions)]);
  await env.shot(page, 'zh-CN-viewer');

  await page.getByRole('button', { name: '返回服务器页面' }).click();
  await row.getByRole('button', { name: `停止显示器 ${display}` }).click();
  const stop = page.getByRole('dialog', { name: `停止显示器 :${display}？` });
  await expectNoEnglish(page, 'stop desktop', serverData);
  await stop.getByRole('button', { name: '停止桌面' }).click();
  await expect(row).toHaveCount(0, { timeout: 30_000 });

  // The choice in the top bar wins over the system's language, is saved, and "System" gives it back.
  await page.getByRole('button', { name: '断开', exact: true }).click();
  await page.getByLabel('应用语言').selectOption('en');
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  expect(JSON.parse(fs.readFileSync(path.join(env.home, 'settings.json'), 'utf8'))).toMatchObject({ language: 'en' });
  await page.getByLabel('Language of the app').selectOption('system');
  await expect(page.getByRole('heading', { name: '服务器', level: 1 })).toBeVisible();
  await env.app.invoke('profiles.remove', { id: (await env.app.invoke('profiles.list', {})).find((p) => p.name === name)!.id });
});

