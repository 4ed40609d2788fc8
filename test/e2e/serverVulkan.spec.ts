/**
 * The server report's Vulkan line: the devices the server's own vulkaninfo lists (Mesa's lavapipe on
 * this GPU-less machine), each with its kind, and the finding for what Vulkan lacks there. The bed's
 * account has the nvidia-smi shim on its PATH (a "loaded" NVIDIA driver with no NVIDIA Vulkan driver
 * behind it), so the report must say the NVIDIA GPU's Vulkan driver is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseVulkaninfoSummary } from '../../src/core/remote/parsers';
import { addProfile, expect, test } from './fixtures';

const SEARCH_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

/** What `vulkaninfo --summary` lists here, run as the bed's account: what the server page must show. */
function localDevices(user: string) {
  const as = process.getuid?.() === 0 && user !== 'root'
    ? { uid: Number(execFileSync('id', ['-u', user], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', user], { encoding: 'utf8' })) }
    : {};
  const r = spawnSync('vulkaninfo', ['--summary'], { encoding: 'utf8', env: { PATH: SEARCH_PATH, HOME: '/', LC_ALL: 'C' }, cwd: '/', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'], ...as });
  if (r.error) throw new Error(`vulkaninfo could not run here (${r.error.message}): apt-get install vulkan-tools mesa-vulkan-drivers, as .ci/run does`);
  return parseVulkaninfoSummary(r.stdout).devices;
}

test('the server report lists the Vulkan devices the server\'s vulkaninfo finds, with their kind, and the finding for the missing NVIDIA Vulkan driver', async ({ page, env }) => {
  test.setTimeout(240_000);
  const want = localDevices(env.bed.user);
  expect(want.length, 'vulkaninfo --summary lists no device on this machine').toBeGreaterThan(0);
  await env.app.open(page);
  await addProfile(page, env, 'vk');
  await page.getByRole('button', { name: 'Connect to vk' }).click();
  // The host key is asked for once per app home; an earlier spec in this worker may have accepted it.
  const known = path.join(env.home, 'known_hosts');
  if (!(fs.existsSync(known) && fs.readFileSync(known, 'utf8').includes(env.bed.knownHostsLine.split(' ')[2]))) {
    await page.getByTestId('host-key-prompt').getByRole('button', { name: 'Accept and save' }).click();
  }
  await expect(page.getByRole('heading', { name: 'vk', level: 1 })).toBeVisible();
  await page.getByRole('tab', { name: /Server report/ }).click();
  const row = page.getByTestId('vulkan-devices');
  await expect(row).toBeVisible({ timeout: 60_000 });
  const kinds = { discrete: 'GPU', integrated: 'integrated GPU', virtual: 'virtual GPU', cpu: 'software, on the CPU', other: 'other device' };
  for (const [i, d] of want.entries()) {
    const line = row.locator('div').nth(i);
    await expect(line).toContainText(d.name);
    await expect(line).toContainText(kinds[d.type]);
    if (d.apiVersion) await expect(line).toContainText(`Vulkan ${d.apiVersion}`);
  }
  await expect(row.locator('div')).toHaveCount(want.length);
  const finding = page.locator('[data-code="VULKAN_NO_NVIDIA_ICD"]');
  await expect(finding).toContainText('its Vulkan driver is not installed');
  // The shim's driver version, and the fix naming the package of the driver's GL/Vulkan libraries.
  await expect(finding).toContainText(/The NVIDIA driver \d+\.\d+\.\d+ is loaded/);
  await expect(finding.locator('.fix')).toContainText(/install the driver's GL\/Vulkan libraries of the same version as the driver \(\d+\.\d+\.\d+\): sudo (apt-get|dnf) install [a-z0-9-]+/);
  // The command is shown as code, without the backticks core marks it with.
  await expect(finding.locator('.fix code').first()).toHaveText(/^sudo (apt-get|dnf) install [a-z0-9-]+$/);
  await env.shot(page, 'server-report-vulkan');
});
