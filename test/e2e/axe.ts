import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect } from './fixtures';

/** The WCAG 2.1 A and AA rules of axe-core: what the accessibility check holds every screen to. */
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe-core on the page as it is: any violation fails, with each rule, its impact and the elements that break it. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  // The remote desktop's canvas is the server's pixels, not the app's: it is left out.
  const r = await new AxeBuilder({ page }).withTags(WCAG_21_AA).exclude('[data-testid="vnc-screen"] canvas').analyze();
  const lines = r.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => `${n.target.join(' ')}${n.failureSummary ? ` [${n.failureSummary.replace(/\s+/g, ' ')}]` : ''}`).join('; ')}`);
  expect(lines, `WCAG 2.1 AA violations on the ${where} screen`).toEqual([]);
}
