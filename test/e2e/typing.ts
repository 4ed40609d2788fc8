import type { Page } from '@playwright/test';

/** Characters a US keyboard types with Shift held. */
const SHIFTED = new Set('~!@#$%^&*()_+{}|:"<>?ABCDEFGHIJKLMNOPQRSTUVWXYZ');

/**
 * Types into the remote desktop as a person at a US keyboard does: Shift held for shifted characters.
 * Playwright's keyboard.type sends ">" as the Period key without Shift, and a server that takes the
 * key's scancode (noVNC sends QEMU extended key events; TurboVNC honours them) would type ".".
 */
export async function typeOnRemote(page: Page, text: string, delay = 10): Promise<void> {
  for (const ch of text) {
    const shift = SHIFTED.has(ch);
    if (shift) await page.keyboard.down('Shift');
    await page.keyboard.type(ch, { delay });
    if (shift) await page.keyboard.up('Shift');
  }
}
