import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { startXvnc } from '../bed';
import { expect, test } from './fixtures';
import { LATIN_TERMS } from '../i18n/terms';
import { expectAccessible } from './axe';

/**
 * Every main screen in Simplified Chinese, with what zhCN.spec.ts does not reach: the Host field's
 * error, the ssh-config import dialog, the viewer's HUD, quality panel and Send keys, the tunnel-only
 * screen. On none of them is there a Latin-script sentence (three Latin words in a row) once code,
 * paths, addresses and the names users or servers gave are taken out. Each screen also passes the same
 * accessibility check as a11y.spec.ts (axe-core, WCAG 2.1 AA), in both themes: Chinese labels are
 * longer or shorter than English ones and wrap differently. With GPU_DESK_SCREENSHOTS=1 it writes the
 * README's screenshots of them (docs/images/<screen>-zh-CN-<theme>.png).
 */
test.use({ locale: 'zh-CN' });

/** Runs of three or more Latin words in the page's text, after what is the same in every language is cut. */
async function latinSentences(page: Page, names: string[]): Promise<string[]> {
  let text = await page.locator('body').innerText();
  const cut = [...names, ...(await page.locator('code, kbd, pre, .mono, [data-testid="fingerprint"]').allInnerTexts())];
  for (const c of [...new Set(cut)].filter((x) => x.length > 1).sort((a, b) => b.length - a.length)) text = text.split(c).join('\n');
  text = text
    .replace(/(?:[~\w.-]*\/)+[\w.*-]*/g, ' ') // paths
    .replace(/\b[\w.-]+@[\w.-]+(?::\d+)?/g, ' ') // user@host
    .replace(/\[?\b(?:\d{1,3}\.){3}\d{1,3}\]?(?::\d+)?/g, ' '); // addresses
  // A word: Latin letters (with digits, dots, dashes inside); words in a run are apart by spaces only.
  // Product and technical names side by side (Intel, AMD, GPU once what is between them is cut) are not a sentence.
  const runs = text.match(/[A-Za-z][\w.'-]*(?:[ \t]+[A-Za-z][\w.'-]*){2,}/g) ?? [];
  return runs.filter((r) => r.split(/\s+/).some((w) => !LATIN_TERMS.has(w.toLowerCase())));
}

async function expectChinese(page: Page, where: string, names: string[]): Promise<void> {
  expect(await latinSentences(page, names), `Latin-script sentences on the ${where} screen (zh-CN)`).toEqual([]);
  await expectAccessible(page, `${where} (zh-CN)`);
}

for (const theme of ['light', 'dark'] as const) {
  test.describe(`${theme} theme`, () => {
    test.use({ colorScheme: theme });

    test(`every main screen in Simplified Chinese has no Latin-script sentence outside names, paths and commands, and passes axe-core's WCAG 2.1 AA rules (${theme})`, async ({ page, env }) => {
      test.setTimeout(300_000);
      const xvnc = await startXvnc({ geometry: '800x600' });
      try {
        const name = `zh-walk-${theme}`;
        fs.writeFileSync(`${env.home}/known_hosts`, `${env.bed.knownHostsLine}\n`);
        await env.app.invoke('profiles.save', {
          profile: {
            name, host: '127.0.0.1', port: env.bed.port, user: env.bed.user, jumpHosts: [], auth: { kind: 'key-file', path: env.bed.userKeyPath },
            display: { number: xvnc.display }, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [],
          },
        });
        const saved = (await env.app.invoke('profiles.list', {})).map((p) => p.name);
        const names = [...saved, env.bed.user, String(env.bed.port), 'bed-alias'];
        await env.app.open(page);
        await expect(page.getByRole('heading', { name: '服务器', level: 1 })).toBeVisible();
        await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
        await expectChinese(page, 'server list', names);
        await env.docShot(page, `servers-zh-CN-${theme}`);

        // Add server: a Host with a space in it is refused, in Chinese.
        await page.getByRole('button', { name: '添加服务器' }).click();
        const dlg = page.getByRole('dialog', { name: '添加服务器' });
        await dlg.getByLabel('名称', { exact: true }).fill('zh-bad-host');
        await dlg.getByLabel('主机', { exact: true }).fill('gpu box');
        await dlg.getByRole('button', { name: '保存' }).click();
        await expect(dlg.getByRole('alert')).toContainText('主机');
        await expectChinese(page, 'add server (Host error)', [...names, 'zh-bad-host', 'gpu box']);
        await dlg.getByRole('button', { name: '取消' }).click();

        // The ssh-config import dialog.
        await page.getByRole('button', { name: '从 ~/.ssh/config 导入' }).click();
        const imp = page.getByRole('dialog', { name: '从 ~/.ssh/config 导入' });
        await expect(imp.getByText('bed-alias')).toBeVisible();
        await expectChinese(page, 'ssh-config import', names);
        await imp.getByRole('button', { name: '取消' }).click();

        // The viewer with its HUD, quality panel and Send keys.
        await page.getByRole('button', { name: `连接到 ${name}` }).click();
        await expect(page.getByTestId('viewer-phase')).toHaveAttribute('data-phase', 'connected', { timeout: 30_000 });
        if (!(await page.getByTestId('toggle-hud').isChecked())) await page.getByTestId('toggle-hud').check();
        await expect(page.getByTestId('hud-quality')).toHaveText(/^画质 \d+ · 压缩 \d+$/);
        await expect(page.getByTestId('hud-latency')).toHaveText('等待按键或点击');
        await expectChinese(page, 'viewer (HUD)', names);
        await page.getByTestId('open-codec').click();
        await expect(page.getByTestId('quality-value')).toBeVisible();
        await expectChinese(page, 'viewer (quality panel)', names);
        await env.docShot(page, `viewer-zh-CN-${theme}`);
        await page.getByTestId('open-codec').click();
        await page.getByRole('button', { name: '发送按键' }).click();
        await expect(page.getByTestId('send-keys').getByRole('heading', { name: '发送按键' })).toBeVisible();
        await expectChinese(page, 'viewer (Send keys)', names);
        await page.getByRole('button', { name: '关闭“发送按键”' }).click();

        // The server page's tabs.
        await page.getByRole('button', { name: '返回服务器页面' }).click();
        await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
        await page.getByRole('tab', { name: /服务器报告/ }).click();
        await expect(page.getByTestId('probe-report')).toBeVisible({ timeout: 60_000 });
        // The report shows the server's own words (OS, versions, renderer): they are its names.
        const connectionId = (await env.app.invoke('connections.list', {})).find((c) => c.state === 'ready')!.id;
        const report = await env.app.invoke('server.probe', { connectionId });
        const serverWords = JSON.stringify(report).match(/"([^"\\]{2,})"/g)!.map((s) => s.slice(1, -1));
        await expectChinese(page, 'server report', [...names, ...serverWords]);
        await env.docShot(page, `report-zh-CN-${theme}`);
        await page.getByRole('tab', { name: 'GPU', exact: true }).click();
        await expect(page.getByTestId('gpu-0').or(page.locator('#panel-gpus p')).first()).toBeVisible({ timeout: 30_000 });
        await expectChinese(page, 'GPUs', [...names, ...serverWords]);
        await page.getByRole('tab', { name: '配置', exact: true }).click();
        await expect(page.locator('#panel-setup')).toBeVisible();
        await expectChinese(page, 'set-up', [...names, ...serverWords]);
        await env.docShot(page, `setup-zh-CN-${theme}`);
        await page.getByRole('tab', { name: '端口转发' }).click();
        await expect(page.getByTestId('forwards-edit')).toHaveText('编辑端口转发…');
        await expectChinese(page, 'forwards', names);
        await page.getByRole('tab', { name: '文件', exact: true }).click();
        await expect(page.getByTestId('files-path')).not.toBeEmpty({ timeout: 30_000 });
        await expect(page.getByTestId('files-upload')).toHaveText('上传…');
        const fileNames = await page.locator('[data-testid^="file-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice('file-'.length)));
        await expectChinese(page, 'files', [...names, ...fileNames]);
        await env.docShot(page, `files-zh-CN-${theme}`);

        // Desktops, and tunnel-only to the bed's display by its number.
        await page.getByRole('tab', { name: '桌面', exact: true }).click();
        const byNumber = page.locator('#panel-sessions details').filter({ hasText: '按编号打开 X 显示' });
        await byNumber.locator('summary').click();
        await byNumber.getByLabel('X 显示编号').fill(String(xvnc.display));
        await expectChinese(page, 'desktops', [...names, ...serverWords]);
        await env.docShot(page, `desktops-zh-CN-${theme}`);
        await byNumber.getByRole('button', { name: '仅隧道' }).click();
        await expect(page.getByTestId('tunnel-address')).toHaveText(/^127\.0\.0\.1:\d+$/, { timeout: 30_000 });
        await expectChinese(page, 'tunnel-only', names);
        await page.getByRole('button', { name: '关闭隧道' }).click();
        await page.getByRole('button', { name: '断开', exact: true }).click();

        // Keys.
        await page.getByTestId('nav-keys').click();
        await expect(page.locator('.screen h1')).toHaveText('SSH 密钥');
        await expectChinese(page, 'keys', names);
        await env.docShot(page, `keys-zh-CN-${theme}`);
      } finally {
        await xvnc.stop();
      }
    });
  });
}
