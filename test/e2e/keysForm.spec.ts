import { expect, test } from './fixtures';

/** The Keys screen says what is missing instead of doing nothing: Generate without a name, Import greyed out. */
test('Keys screen: Generate with no name says the name is missing; Import says why it is greyed out', async ({ page, env }) => {
  await env.app.open(page);
  await page.getByTestId('nav-keys').click();
  await expect(page.getByTestId('keys-screen')).toBeVisible();

  const importButton = page.getByTestId('key-import');
  await expect(importButton).toBeDisabled();
  await expect(importButton).toHaveAttribute('title', /key name first/);
  await expect(page.getByTestId('key-name-hint')).toHaveText(/key name first/);

  const before = (await env.app.invoke('keys.list', {})).length;
  await page.getByTestId('key-generate').click();
  await expect(page.getByTestId('keys-error')).toHaveText(/needs a name/);
  await expect(page.getByTestId('key-name')).toBeFocused();
  expect(await env.app.invoke('keys.list', {})).toHaveLength(before);

  // Typing a name clears the complaint and enables Import.
  await page.getByTestId('key-name').fill('named-now');
  await expect(page.getByTestId('keys-error')).toHaveCount(0);
  await expect(page.getByTestId('key-name-hint')).toHaveCount(0);
  await expect(importButton).toBeEnabled();
});
