import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from './fixtures';

/**
 * Coming back to a server page shows the last probe report at once, labelled with when it was taken,
 * while a fresh probe runs behind it (it used to show 3–7 s of an empty "Probing…" on every return).
 */
test('returning to a server page keeps the last report, says when it was checked, and refreshes it', async ({ page, env }) => {
  fs.writeFileSync(path.join(env.home, 'known_hosts'), `${env.bed.knownHostsLine}\n`);
  await env.app.invoke('profiles.save', {
    profile: { name: 'return-here', host: '127.0.0.1', port: env.bed.port, user: env.bed.user, jumpHosts: [], auth: { kind: 'key-file', path: env.bed.userKeyPath }, display: {}, viewer: { quality: 6, compression: 2, encodings: [], scaling: 'fit', adaptive: true }, forwards: [] },
  });
  await env.app.open(page);
  const row = page.locator('.server-list > li').filter({ hasText: 'return-here' });
  await row.locator('button.primary').click();
  await page.getByRole('tab', { name: 'Server report' }).click();
  await expect(page.getByTestId('probe-report')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('report-age')).toHaveText(/checked (now|\d+ seconds? ago)$/);

  // Away (the servers list) and back through Open: the page mounts afresh.
  await page.getByRole('button', { name: 'gpu-desk: server list' }).click();
  await row.getByRole('button', { name: 'Open return-here' }).click();
  await page.getByRole('tab', { name: 'Server report' }).click();
  // The report is there at once (no empty "Probing the server…" in its place), with its time.
  await expect(page.getByTestId('probe-report')).toBeVisible();
  await expect(page.getByText('Probing the server (a few seconds, no root needed)…')).toHaveCount(0);
  await expect(page.getByTestId('report-age')).toContainText('checked');
  // The background probe ends and the label is a plain "checked …" again.
  await expect(page.getByTestId('report-age')).not.toContainText('checking again', { timeout: 60_000 });
});
