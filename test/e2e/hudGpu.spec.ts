import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { startSshd, startXvnc } from '../bed';
import { expect, test } from './fixtures';
import { connectAndStartDesktop, viewDesktop } from './desktopSteps';
import { GPU_FIGURES_QUERIES, gpuFiguresQueryArg, parseGpuFiguresCsv, type GpuFigures } from '../../src/core/remote/gpuFigures';

/** The nvidia-smi SHIM on the bed account's PATH (no GPU here), run as the HUD runs it. */
const SHIM = path.resolve(__dirname, 'shims', 'nvidia-smi');

function shimPrints(): GpuFigures[] {
  const fields = GPU_FIGURES_QUERIES[0];
  return parseGpuFiguresCsv(execFileSync(SHIM, [gpuFiguresQueryArg(fields), '--format=csv,noheader,nounits'], { encoding: 'utf8' }), fields);
}

/** A HUD line's raw figures (HudGpus.tsx puts them beside the words). */
async function figuresOf(el: Locator): Promise<Record<string, string | null>> {
  const names = ['name', 'mem-total', 'temp', 'power', 'power-limit', 'enc', 'dec', 'util', 'mem-used'];
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await el.getAttribute(`data-${n}`)] as const)));
}

/** What the shim prints for a GPU, in the HUD's data attributes; `moving` adds the figures the shim varies. */
function expected(g: GpuFigures, moving: boolean): Record<string, string | null> {
  const v = (x: number | null) => (x === null ? '' : String(x));
  return {
    name: g.name, 'mem-total': v(g.memoryTotalMiB), temp: v(g.temperatureC), power: v(g.powerDrawW), 'power-limit': v(g.powerLimitW),
    enc: v(g.encoderPct), dec: v(g.decoderPct), ...(moving ? { util: v(g.utilizationPct), 'mem-used': v(g.memoryUsedMiB) } : {}),
  };
}

/** Counts the window's calls of each method on the harness's IPC socket (passing every message on as it is). */
async function countCalls(page: Page, counts: Map<string, number>): Promise<void> {
  await page.routeWebSocket(/\/ipc\?token=/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => {
      const method = (JSON.parse(String(m)) as { method?: string }).method;
      if (method) counts.set(method, (counts.get(method) ?? 0) + 1);
      server.send(m);
    });
    server.onMessage((m) => ws.send(m));
  });
}

/**
 * The desktops list as a server that started the desktop on one GPU answers it (`renderGpu` on the
 * desktop's info, which the per-desktop GPU choice fills in): the harness's IPC socket, its
 * sessions.list answers given `renderGpu` while `inject.gpu` is set.
 */
async function desktopsSayRenderGpu(page: Page, inject: { gpu: number | null }): Promise<void> {
  await page.routeWebSocket(/\/ipc\?token=/, (ws) => {
    const server = ws.connectToServer();
    const listCalls = new Set<number>();
    ws.onMessage((m) => {
      const msg = JSON.parse(String(m)) as { id?: number; method?: string };
      if (msg.method === 'sessions.list' && typeof msg.id === 'number') listCalls.add(msg.id);
      server.send(m);
    });
    server.onMessage((m) => {
      const msg = JSON.parse(String(m)) as { id?: number; ok?: boolean; value?: { display: number }[] };
      if (inject.gpu !== null && typeof msg.id === 'number' && listCalls.delete(msg.id) && msg.ok && Array.isArray(msg.value)) {
        ws.send(JSON.stringify({ ...msg, value: msg.value.map((s) => ({ ...s, renderGpu: inject.gpu })) }));
        return;
      }
      ws.send(m);
    });
  });
}

test('viewer HUD with the nvidia-smi shim: every GPU in a line as the shim prints them, then only the desktop\'s renderGpu in full', async ({ page, env }) => {
  test.setTimeout(300_000);
  const inject: { gpu: number | null } = { gpu: null };
  await desktopsSayRenderGpu(page, inject);
  const { display, row } = await connectAndStartDesktop(page, env, 'hudgpu', '800x600', {
    beforeStart: async () => {
      // "Render on" lists the GPUs as the probe saw them (the shim's), the least busy chosen by default.
      const renderOn = page.getByTestId('session-gpu');
      const options = (await renderOn.locator('option').allTextContents()).map((t) => /^GPU (\d+) \(.*, (\d+) % busy\)$/.exec(t)).filter((m) => m !== null);
      expect(options.map((m) => Number(m![1]))).toEqual([0, 1]);
      const busiestLast = [...options].sort((a, b) => Number(a![2]) - Number(b![2]) || Number(a![1]) - Number(b![1]));
      await expect(renderOn).toHaveValue(busiestLast[0]![1]);
      // This desktop is not pinned, so the HUD has no GPU of its own to show first.
      await renderOn.selectOption({ label: 'Any GPU (not pinned)' });
    },
  });

  // No render GPU on the desktop's info: each of the server's GPUs in one line.
  await viewDesktop(page, row, display);
  const hud = page.getByTestId('hud');
  const shim = shimPrints();
  expect(shim.map((g) => g.index)).toEqual([0, 1]);
  for (const g of shim) {
    const line = hud.getByTestId(`hud-gpu-${g.index}`);
    await expect(line).toBeVisible({ timeout: 30_000 });
    // GPU 0's utilisation and memory move with the clock (the shim's "live" data): its other figures are compared.
    await expect.poll(() => figuresOf(line)).toMatchObject(expected(g, g.index === 1));
    await expect(line).toContainText(`GPU ${g.index}:`);
  }
  const mib = (n: number | null) => (n ?? 0).toLocaleString('en-US');
  await expect(hud.getByTestId('hud-gpu-1')).toContainText(`${mib(shim[1].memoryUsedMiB)} / ${mib(shim[1].memoryTotalMiB)} MiB`);
  await expect(hud.getByTestId('hud-gpu-more')).toHaveCount(0);
  // Hidden HUD, no panel (and no polling: the panel is gone with it).
  await page.getByTestId('toggle-hud').uncheck();
  await expect(page.getByTestId('hud-gpu')).toHaveCount(0);
  await page.getByTestId('toggle-hud').check();
  await expect(hud.getByTestId('hud-gpu-0')).toBeVisible();
  await env.shot(page, 'viewer-hud-gpus');

  // The desktop's info names GPU 1: the HUD shows that GPU in full, and no other.
  await page.getByRole('button', { name: 'Back to the server' }).click();
  inject.gpu = 1;
  await page.getByRole('tab', { name: 'GPUs' }).click();
  await page.getByRole('tab', { name: 'Desktops' }).click();
  await row.getByRole('button', { name: `View display ${display}` }).click();
  await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 30_000 });
  const panel = hud.getByTestId('hud-gpu');
  await expect(panel).toHaveAttribute('data-index', '1', { timeout: 30_000 });
  const g1 = shim[1];
  await expect.poll(() => figuresOf(hud.getByTestId('hud-gpu-1'))).toMatchObject(expected(g1, true));
  await expect(panel.getByRole('heading')).toHaveText(`GPU 1 · ${g1.name}`);
  await expect(panel.getByTestId('hud-gpu-temp')).toHaveText(`${g1.temperatureC} °C`);
  await expect(panel.getByTestId('hud-gpu-power')).toHaveText(`${Math.round(g1.powerDrawW!)} / ${Math.round(g1.powerLimitW!)} W`);
  await expect(panel.getByTestId('hud-gpu-codec')).toHaveText(`${g1.encoderPct}% / ${g1.decoderPct}%`);
  await expect(hud.getByTestId('hud-gpu-0')).toHaveCount(0);
  await env.shot(page, 'viewer-hud-render-gpu');

  await page.getByRole('button', { name: 'Back to the server' }).click();
  await page.getByRole('tab', { name: 'Desktops' }).click();
  await row.getByRole('button', { name: `Stop display ${display}` }).click();
  await page.getByRole('dialog', { name: `Stop display :${display}?` }).getByRole('button', { name: 'Stop desktop' }).click();
  await expect(page.getByTestId(`session-${display}`)).toHaveCount(0, { timeout: 180_000 });
  await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
});

test('viewer HUD on a server with no nvidia-smi: says so once, shows no GPU panel, and does not ask again', async ({ page, env }) => {
  test.setTimeout(180_000);
  // The bed's account again, behind a second sshd whose PATH has no nvidia-smi shim.
  const bare = await startSshd({ extraConfig: ['SetEnv PATH=/usr/local/bin:/usr/bin:/bin'] });
  const xvnc = await startXvnc({ geometry: '640x480' });
  try {
    fs.writeFileSync(path.join(env.home, 'known_hosts'), `${env.bed.knownHostsLine}\n${bare.knownHostsLine}\n`);
    await env.app.invoke('profiles.save', {
      profile: {
        name: 'nogpu', host: '127.0.0.1', port: bare.port, user: bare.user, jumpHosts: [], auth: { kind: 'key-file', path: bare.userKeyPath },
        display: { number: xvnc.display }, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'off', adaptive: false }, forwards: [],
      },
    });
    const calls = new Map<string, number>();
    await countCalls(page, calls);
    await env.app.open(page);
    await page.getByRole('button', { name: 'Connect to nogpu' }).click();
    await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 30_000 });
    await expect(page.getByTestId('hud-gpu-none')).toHaveText('No NVIDIA GPU figures on this server', { timeout: 30_000 });
    await expect(page.getByTestId('hud-gpu')).toHaveCount(0);
    // The HUD's other figures come once a second: three more of them, and still the one GPU question.
    const stats = calls.get('viewer.stats') ?? 0;
    await expect.poll(() => calls.get('viewer.stats') ?? 0, { timeout: 30_000, message: 'the HUD\'s once-a-second viewer.stats' }).toBeGreaterThanOrEqual(stats + 3);
    expect(calls.get('viewer.gpus')).toBe(1);
    await page.getByRole('button', { name: 'Back to the server' }).click();
    await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
  } finally {
    await xvnc.stop();
    await bare.stop();
  }
});
