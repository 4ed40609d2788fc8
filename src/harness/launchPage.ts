import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Opening the harness in a browser without its token on any command line: `xdg-open URL#token=…`
 * puts the token in /proc/PID/cmdline, which every local user can read, and the token is the whole
 * IPC. Instead the URL goes into a page readable by the owner only (0600, in the run's own 0700
 * data directory), and the browser is given that file's path: the page sends it on to the URL.
 */
export function writeLaunchPage(dir: string, url: string): { file: string; argv: string[] } {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'open-gpu-desk.html');
  fs.rmSync(file, { force: true });
  const target = JSON.stringify(url).replace(/</g, '\\u003c');
  const attr = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const html = `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${attr}"><title>gpu-desk</title><script>location.replace(${target})</script>\n`;
  // 'wx': never write through a file (or link) someone else put there.
  fs.writeFileSync(file, html, { mode: 0o600, flag: 'wx' });
  return { file, argv: [pathToFileURL(file).href] };
}
