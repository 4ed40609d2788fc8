import { expect, type Page } from '@playwright/test';

/** The HUD's frames per second (0 while it shows none). */
export async function hudFps(page: Page): Promise<number> {
  const t = (await page.getByTestId('hud-fps').textContent()) ?? '';
  const v = parseFloat(t);
  return Number.isFinite(v) ? v : 0;
}

/**
 * Mean of the HUD's bytes-per-frame figure over `samples` of its once-a-second readings taken while
 * frames move. The first readings after a codec change straddle it (and hold the full-screen
 * refresh the change asks for), so `skip` of them are dropped.
 */
export async function bytesPerFrame(page: Page, samples: number, skip = 2): Promise<number> {
  const vals: number[] = [];
  let last = await page.getByTestId('hud-bpf').getAttribute('data-value');
  await expect.poll(async () => {
    const v = await page.getByTestId('hud-bpf').getAttribute('data-value');
    if (v && v !== last && (await hudFps(page)) > 0) vals.push(Number(v));
    last = v;
    return vals.length;
  }, { timeout: 120_000, intervals: [250], message: 'HUD readings of bytes per frame while frames move' }).toBeGreaterThanOrEqual(samples + skip);
  const used = vals.slice(skip);
  return used.reduce((a, b) => a + b, 0) / used.length;
}
