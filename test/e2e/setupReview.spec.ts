import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from './fixtures';

/**
 * The set-up plan on the bed, which has VirtualGL and TurboVNC in /opt and whose account sudo asks a
 * password of: the steps already done say they will be skipped, every step says why it runs or not; the
 * plan survives a trip away from the server page; a wrong sudo password is refused in one plain line
 * (not sudo's "no password was provided"), and Retry runs again from the failed step.
 */
test('set-up plan: skipped steps say so, each step says why; kept across a return; a refused sudo password, then Retry from the failed step', async ({ page, env }) => {
  test.setTimeout(240_000);
  fs.writeFileSync(path.join(env.home, 'known_hosts'), `${env.bed.knownHostsLine}\n`);
  await env.app.invoke('profiles.save', {
    profile: { name: 'plan-here', host: '127.0.0.1', port: env.bed.port, user: env.bed.user, jumpHosts: [], auth: { kind: 'key-file', path: env.bed.userKeyPath }, display: {}, viewer: { quality: 6, compression: 2, encodings: [], scaling: 'fit', adaptive: true }, forwards: [] },
  });
  await env.app.open(page);
  const row = page.locator('.server-list > li').filter({ hasText: 'plan-here' });
  await row.locator('button.primary').click();
  await page.getByRole('tab', { name: 'Set-up' }).click();
  const wizard = page.getByTestId('setup-wizard');
  await wizard.getByTestId('setup-options').locator('summary').click();
  await wizard.getByLabel('Where to install').selectOption('system');
  await wizard.getByTestId('setup-make-plan').click();

  // Both are installed in /opt on the bed: their steps will be skipped, and say so.
  for (const id of ['virtualgl', 'vnc-server']) {
    const step = wizard.getByTestId(`plan-step-${id}`);
    await expect(step).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
    await expect(step.getByRole('heading')).toContainText('will be skipped');
    await expect(wizard.getByTestId(`plan-reason-${id}`)).toHaveText('Will be skipped: already done on the server.');
  }
  // Every step says why it runs or not.
  const steps = wizard.locator('ol.plan > li');
  const n = await steps.count();
  expect(n).toBeGreaterThan(2);
  for (let i = 0; i < n; i++) await expect(steps.nth(i).locator('[data-testid^="plan-reason-"]')).toHaveText(/^Will (be skipped|run): /);
  const pending = await wizard.locator('ol.plan > li[data-state="pending"]').count();
  test.skip(pending === 0, 'every step is already done on this machine: there is nothing to run as root');

  // Away to the server list and back: the plan under review is still there.
  await wizard.getByTestId('setup-consent').check();
  await page.getByRole('button', { name: 'gpu-desk: server list' }).click();
  await row.getByRole('button', { name: 'Open plan-here' }).click();
  await page.getByRole('tab', { name: 'Set-up' }).click();
  await expect(wizard.getByTestId('plan-step-virtualgl')).toHaveAttribute('data-state', 'done');
  await expect(wizard.getByTestId('setup-consent')).toBeChecked();

  // The bed's account needs a password for sudo (it has no sudo rights): the password is asked.
  await wizard.getByTestId('setup-continue').click();
  await wizard.getByTestId('setup-sudo-password').fill('not-the-password');
  await wizard.getByTestId('setup-apply').click();
  const result = wizard.getByTestId('setup-result');
  await expect(result).toHaveAttribute('data-ok', 'false', { timeout: 120_000 });
  await expect(result).toContainText(/refused the password|may not use sudo/);
  await expect(wizard).not.toContainText('no password was provided');
  const failedId = (await wizard.locator('.progress-list > li.st-failed').getAttribute('data-testid'))!.replace(/^step-/, '');
  // The steps before the failed one finished (skipped: already done).
  const ids = await wizard.locator('.progress-list > li').evaluateAll((ls) => ls.map((l) => ({ id: l.getAttribute('data-testid')!.replace(/^step-/, ''), cls: l.className })));
  const before = ids.slice(0, ids.findIndex((x) => x.id === failedId));
  for (const b of before) expect(b.cls).toMatch(/st-(skipped|done)/);

  // Retry: from the failed step, asking the password again (it is never kept).
  await wizard.getByTestId('setup-retry').click();
  await expect(wizard.getByTestId('setup-retry-from')).toContainText('Retry from');
  await wizard.getByTestId('setup-sudo-password').fill('still-not-the-password');
  await wizard.getByTestId('setup-apply').click();
  await expect(result).toHaveAttribute('data-ok', 'false', { timeout: 120_000 });
  await expect(wizard.getByTestId(`step-${failedId}`)).toHaveClass(/st-failed/);
  for (const b of before) await expect(wizard.getByTestId(`step-${b.id}`)).toHaveClass(/st-(skipped|done)/);
  await expect(wizard.getByTestId('setup-retry')).toBeVisible();
  await expect(wizard.getByRole('button', { name: 'Close' })).toBeVisible();
});
