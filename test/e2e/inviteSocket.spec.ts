import { expect, test } from './fixtures';
import { connectAndStartDesktop, stopAndDisconnect, viewDesktop } from './desktopSteps';

/**
 * Invite to watch… on a desktop that only listens on this account's Unix socket (TurboVNC's default):
 * greyed out with the reason before anyone clicks, since another login cannot reach the socket.
 */
test('Invite to watch… is greyed out, with the reason, on a desktop on a private Unix socket', async ({ page, env }) => {
  test.setTimeout(240_000);
  const { display, row } = await connectAndStartDesktop(page, env, 'invite-socket', '800x600');
  await expect(row).toContainText('socket');
  await viewDesktop(page, row, display);
  const invite = page.getByTestId('invite-open');
  await expect(invite).toBeDisabled();
  await expect(invite).toHaveAttribute('title', /Unix socket/);
  await expect(page.getByTestId('invite-why')).toContainText('Not shareable');
  await page.getByRole('button', { name: 'Back to the server' }).click();
  await stopAndDisconnect(page, row, display);
});
