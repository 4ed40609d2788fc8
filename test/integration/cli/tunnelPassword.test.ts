import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, isPortFree, makeTempDir, startSshd, type SshdBed } from '../../bed';
import { nextLine, spawnCli } from '../../helpers/cli';
import { vncAuthenticates } from '../remote/rfb';

/**
 * Issue 43, blocker 1 and "a tunnel to a display that does not exist": desktops gpu-desk starts ask
 * for a password, so `gpu-desk tunnel` prints one beside the address (TurboVNC: a fresh one-time
 * password; TigerVNC: the desktop's own), and `sessions otp N` makes another. A real TurboVNC and
 * TigerVNC desktop on the real sshd bed, reached through the tunnel by an RFB client with VNC auth.
 */

let bed: SshdBed;
let home: string;
const started: number[] = [];

// stdin stays open: a tunnel runs until it is signalled, as at a terminal.
const cli = (args: string[]) => spawnCli(args, { home, stdin: null });

const dest = () => [`${bed.user}@127.0.0.1`, '-p', String(bed.port), '-i', bed.userKeyPath, '-F', 'none', '--accept-new-host-key', '--known-hosts', path.join(home, 'kh')];

/** A command that prints one JSON object and exits 0. */
async function json(args: string[]): Promise<Record<string, unknown>> {
  const r = cli(args);
  const out = JSON.parse(await nextLine(r));
  expect(await r.exit, r.stderr()).toBe(0);
  return out;
}

/** The one-line error of a command that must fail, and that it printed nothing on stdout. */
async function fails(args: string[]): Promise<string> {
  const r = cli(args);
  expect(await r.exit).not.toBe(0);
  expect(r.stdout()).toBe('');
  return r.stderr().trim().split('\n').at(-1)!;
}

beforeAll(async () => {
  bed = await startSshd();
  home = makeTempDir('gd-tunnelpw-');
}, 60_000);
afterAll(async () => {
  for (const d of started) await json(['sessions', ...dest(), 'kill', String(d), '--json']).catch(() => {});
  await cleanupAll();
});

describe('tunnel-only mode gives the password of the desktops gpu-desk starts (real CLI, sshd, TurboVNC, TigerVNC)', () => {
  it('TurboVNC: a fresh one-time password beside the address (--json and plain), another from sessions otp N; each opens one RFB connection through the tunnel', async () => {
    const s = await json(['sessions', ...dest(), 'start', '--wm', '/usr/bin/xterm', '--no-virtualgl', '--geometry', '800x600', '--json']);
    const display = Number(s.display);
    started.push(display);
    expect(s).toMatchObject({ flavor: 'turbovnc', passwordKind: 'otp' });

    const t = cli(['tunnel', ...dest(), '--display', String(display), '--json']);
    const ev = JSON.parse(await nextLine(t));
    expect(ev).toMatchObject({ event: 'listening', display, passwordKind: 'otp' });
    expect(ev.password).toMatch(/^\d{8}$/);
    expect(ev.password).not.toBe(s.password);
    const port = Number(String(ev.local).split(':')[1]);
    expect(await vncAuthenticates(port, 'wrongpw1')).toBe(false);
    expect(await vncAuthenticates(port, ev.password)).toBe(true);
    // One connection each: the same password again is refused, a new one from `sessions otp` works.
    expect(await vncAuthenticates(port, ev.password)).toBe(false);
    const otp = await json(['sessions', ...dest(), 'otp', String(display), '--json']);
    expect(otp).toMatchObject({ display, passwordKind: 'otp' });
    expect(await vncAuthenticates(port, String(otp.password))).toBe(true);
    t.proc.kill('SIGINT');
    expect(await t.exit).toBe(0);

    // Plain output: the password on the line after the viewer command.
    const h = cli(['tunnel', ...dest(), '--display', String(display)]);
    const said: string[] = [];
    while (!said.at(-1)?.startsWith('Press Ctrl+C')) said.push(await nextLine(h));
    const pw = said.map((l) => /One-time password \(one connection\): (\d{8})/.exec(l)?.[1]).find(Boolean);
    expect(pw, said.join('\n')).toBeDefined();
    const hport = Number(/127\.0\.0\.1:(\d+)/.exec(said.find((l) => l.startsWith(`Display :${display} is on`))!)![1]);
    expect(await vncAuthenticates(hport, pw!)).toBe(true);
    h.proc.kill('SIGINT');
    expect(await h.exit).toBe(0);
  });

  it("TigerVNC: the desktop's own password, which VNC authentication accepts through the tunnel", async () => {
    const s = await json(['sessions', ...dest(), 'start', '--flavor', 'tigervnc', '--wm', '/usr/bin/xterm', '--no-virtualgl', '--geometry', '800x600', '--json']);
    const display = Number(s.display);
    started.push(display);
    expect(s).toMatchObject({ flavor: 'tigervnc', passwordKind: 'session' });
    const t = cli(['tunnel', ...dest(), '--display', String(display), '--json']);
    const ev = JSON.parse(await nextLine(t));
    expect(ev).toMatchObject({ event: 'listening', display, password: s.password, passwordKind: 'session' });
    expect(await vncAuthenticates(Number(String(ev.local).split(':')[1]), String(ev.password))).toBe(true);
    expect(await fails(['sessions', ...dest(), 'otp', String(display)])).toMatch(/^error: Session :\d+ is a TigerVNC desktop, which has no one-time passwords/);
    t.proc.kill('SIGINT');
    expect(await t.exit).toBe(0);
  });

  it('a display with no desktop is refused before listening, with the fix; a bad display number is one line', async () => {
    let none = 42;
    while (started.includes(none) || !(await isPortFree(5900 + none))) none++;
    expect(await fails(['tunnel', ...dest(), '--display', String(none)])).toMatch(new RegExp(`^error: No desktop is running on display :${none} of .* — start one with gpu-desk sessions .* start ${none}, or list them`));
    expect(await fails(['tunnel', ...dest(), '--display', 'one'])).toBe("error: Display 'one' is not a number — give 0–99 (display :N listens on port 5900+N)");
    expect(await fails(['sessions', ...dest(), 'kill', 'one'])).toBe("error: Display 'one' is not a number — give 0–99 (display :N listens on port 5900+N)");
    expect(await fails(['tunnel', ...dest(), '--display', '100'])).toBe('error: Display 100 is out of range — give 0–99 (display :N listens on port 5900+N)');
  });

  it('a viewer on a forward the server cannot open is closed at once, and the CLI says why', async () => {
    const closed = await new Promise<number>((r) => { const srv = net.createServer().listen(0, '127.0.0.1', () => { const p = (srv.address() as net.AddressInfo).port; srv.close(() => r(p)); }); });
    const t = cli(['tunnel', ...dest(), '-L', `0:127.0.0.1:${closed}`, '--json']);
    const ev = JSON.parse(await nextLine(t));
    expect(ev.event).toBe('listening');
    const local = Number(String((ev.forwards as { local: string }[])[0].local).split(':')[1]);
    const s = net.connect({ host: '127.0.0.1', port: local });
    s.on('error', () => {});
    await new Promise((r) => s.once('close', r));
    const failed = JSON.parse(await nextLine(t));
    expect(failed.event).toBe('open-failed');
    expect(failed.reason).toMatch(new RegExp(`127\\.0\\.0\\.1:${closed}.*(refused|failed)`, 'i'));
    t.proc.kill('SIGINT');
    expect(await t.exit).toBe(0);
  });
});
