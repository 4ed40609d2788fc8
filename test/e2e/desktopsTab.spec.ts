import { expect, test } from './fixtures';
import { connectAndStartDesktop, stopAndDisconnect, viewDesktop } from './desktopSteps';

/**
 * The Desktops tab: a desktop started with Openbox says how to reach its menu (its screen is black
 * until then), and coming back from viewing it lists it (not "No VNC desktop is running").
 */
test('Desktops tab: Openbox hint on start; the desktop is listed on return from its viewer', async ({ page, env }) => {
  test.setTimeout(240_000);
  const { display, row } = await connectAndStartDesktop(page, env, 'desktops-tab', '800x600');
  await expect(page.getByTestId('wm-hint')).toContainText('right-click');
  await viewDesktop(page, row, display);
  await page.getByRole('button', { name: 'Back to the server' }).click();
  await expect(row).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText('No VNC desktop is running. Start one below.')).toHaveCount(0);
  await stopAndDisconnect(page, row, display);
});
