import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeLaunchPage } from '../../../src/harness/launchPage';

/**
 * Issue 34, low 7: the demo/harness token (the whole IPC) must not travel on xdg-open's command line,
 * which /proc/PID/cmdline shows to every local user. The browser gets a 0600 page's path instead.
 */
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-launch-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const URL_WITH_TOKEN = 'http://127.0.0.1:4711/#token=SeCrEt-Token_123&connect=abc"<x';

describe('opening the harness without the token on argv (issue 34 low 7)', () => {
  it('argv holds only a file URL; the page is 0600 and sends the browser on to the tokened URL', () => {
    const { file, argv } = writeLaunchPage(dir, URL_WITH_TOKEN);
    expect(argv.join(' ')).not.toContain('SeCrEt');
    expect(argv).toEqual([expect.stringMatching(/^file:\/\//)]);
    expect(fileURLToPath(argv[0])).toBe(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const html = fs.readFileSync(file, 'utf8');
    const m = /location\.replace\((.*)\)<\/script>/.exec(html);
    expect(JSON.parse(m![1])).toBe(URL_WITH_TOKEN);
    expect(html).not.toContain('"<x');
    // Written again (a second run in the same data dir): replaced, still 0600.
    writeLaunchPage(dir, URL_WITH_TOKEN);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('the demo hands xdg-open the launch page, never the URL itself', () => {
    const demo = fs.readFileSync(path.resolve(__dirname, '../../../src/harness/demo.ts'), 'utf8');
    const calls = [...demo.matchAll(/spawn\('xdg-open',\s*([^,]+),/g)].map((x) => x[1].trim());
    expect(calls.length).toBeGreaterThan(0);
    for (const a of calls) expect(a).toBe('launch.argv');
  });
});
