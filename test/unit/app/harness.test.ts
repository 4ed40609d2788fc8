import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { createWebSocketStream } from 'ws';
import { openIpc as open } from '../../helpers/ipcClient';
import { cleanupAll, startSshd, startXvnc, type SshdBed, type XvncBed } from '../../bed';
import { startHarness, type Harness } from '../../../src/harness/server';
import { redactSecrets } from '../../../src/core/errors';
import { ProfileStore } from '../../../src/core/profiles/profileStore';
import type { ProfileInput } from '../../../src/shared/contract';
import { rfbHandshake } from '../../integration/remote/rfb';

/**
 * The harness's IPC socket and the app services behind it, against a real sshd and a real Xvnc:
 * authentication of the socket, hostile input, the connect flow with its prompts, and the viewer's
 * byte channel through the SSH tunnel.
 */
let bed: SshdBed;
let xvnc: XvncBed;
let harness: Harness;
let home: string;
const logs: string[] = [];

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-harness-test-'));
  process.env.GPU_DESK_HOME = home;
  [bed, xvnc] = await Promise.all([startSshd(), startXvnc({ geometry: '640x480' })]);
  harness = await startHarness({ build: false, log: (l) => logs.push(l), deps: { sshConfigPath: null, userKnownHostsFiles: [] } });
});
afterAll(async () => {
  await harness?.close();
  await cleanupAll();
  fs.rmSync(home, { recursive: true, force: true });
});

const ipcUrl = () => harness.url.replace('http://', 'ws://').replace('/#token=', '/ipc?token=');

function profile(name: string, over: Partial<ProfileInput> = {}): ProfileInput {
  return {
    name, host: '127.0.0.1', port: bed.port, user: bed.user, jumpHosts: [], auth: { kind: 'key-file', path: bed.userKeyPath },
    display: {}, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [], ...over,
  };
}

describe('harness IPC socket', () => {
  it('needs this run’s token and our own page origin', async () => {
    await expect(open(ipcUrl(), 'http://evil.example')).rejects.toThrow('HTTP 403');
    await expect(open(ipcUrl(), undefined)).rejects.toThrow('HTTP 403');
    await expect(open(ipcUrl().replace(/token=.*/, 'token=guess'), harness.origin)).rejects.toThrow('HTTP 403');
    const c = await open(ipcUrl(), harness.origin);
    expect(await c.call('app.info', {})).toMatchObject({ ok: true, value: { shell: 'harness' } });
    c.close();
  });

  it('answers hostile input with clean error values', async () => {
    const c = await open(ipcUrl(), harness.origin);
    expect((await c.call('fs.readFile', { path: '/etc/shadow' })).error?.code).toBe('IPC_UNKNOWN_METHOD');
    expect((await c.call('app.info', { extra: 1 })).error?.code).toBe('IPC_BAD_INPUT');
    expect((await c.call('profiles.save', { profile: profile('x', { port: 0 }) })).error).toMatchObject({ code: 'IPC_BAD_INPUT', message: expect.stringContaining('port') });
    expect((await c.call('profiles.save', { profile: profile('x', { host: '$(id)' }) })).error?.code).toBe('IPC_BAD_INPUT');
    expect((await c.call('viewer.open', { connectionId: 'c1', display: 1 })).error?.code).toBe('NOT_CONNECTED');
    expect((await c.call('app.openExternal', { url: 'file:///etc/passwd' })).error?.code).toBe('IPC_BAD_INPUT');
    expect((await c.call('prompts.answer', { promptId: 'nope', answer: { kind: 'secret', value: 'x'.repeat(5000) } })).error?.code).toBe('IPC_BAD_INPUT');
    c.close();
  });

  it('keeps the language in settings.json, tells every window, and refuses a language it has no catalogue for', async () => {
    const a = await open(ipcUrl(), harness.origin);
    const b = await open(ipcUrl(), harness.origin);
    expect((await a.call('settings.get', {})).value).toEqual({ language: 'system', keepRunningInTray: true, systemLocales: [] });
    const changed = b.nextEvent('settings.changed');
    expect((await a.call('settings.set', { language: 'zh-CN' })).value).toMatchObject({ language: 'zh-CN', keepRunningInTray: true });
    expect(await changed).toMatchObject({ language: 'zh-CN' });
    expect(JSON.parse(fs.readFileSync(path.join(home, 'settings.json'), 'utf8'))).toEqual({ language: 'zh-CN', keepRunningInTray: true });
    // Only the fields given change.
    expect((await a.call('settings.set', { keepRunningInTray: false })).value).toMatchObject({ language: 'zh-CN', keepRunningInTray: false });
    const bad = await a.call('settings.set', { language: 'fr' });
    expect(bad.error?.code).toBe('IPC_BAD_INPUT');
    expect((await b.call('settings.get', {})).value).toMatchObject({ language: 'zh-CN' });
    await a.call('settings.set', { language: 'system', keepRunningInTray: true });
    a.close();
    b.close();
  });

  it('a window cannot name a file for the main process to read as an ssh config', async () => {
    // What a compromised renderer would point at: its first line used to come back in the error.
    const target = path.join(home, 'not-an-ssh-config');
    fs.writeFileSync(target, 'root:$y$j9T$TOPSECRETHASH:19000:0:99999:7:::\n');
    const c = await open(ipcUrl(), harness.origin);
    for (const [method, input] of [
      ['profiles.sshConfigHosts', { path: target }],
      ['profiles.importSshConfig', { aliases: ['root'], path: target }],
    ] as const) {
      const r = await c.call(method, input);
      expect(r.error?.code, method).toBe('IPC_BAD_INPUT');
      expect(JSON.stringify(r)).not.toContain('TOPSECRET');
    }
    c.close();
    expect(logs.join('\n')).not.toContain('TOPSECRET');
  });
});

describe('harness static files', () => {
  it('answers 400 to a malformed percent-escape in the path and keeps serving', async () => {
    for (const bad of ['/%', '/%zz', '/%E0%A4%A.js', '/assets/%']) {
      const r = await rawGet(harness.port, bad);
      expect(r.status, bad).toBe(400);
      expect(r.body).toContain('percent-escape');
    }
    // The process is still up and the same server still answers requests.
    expect((await rawGet(harness.port, '/no-such-file.js')).status).toBe(404);
    const c = await open(ipcUrl(), harness.origin);
    expect(await c.call('app.info', {})).toMatchObject({ ok: true });
    c.close();
  });
});

/** The path goes out byte for byte: fetch() and URL would normalise or re-encode it first. */
function rawGet(port: number, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('connect flow and viewer channel (real sshd, real Xvnc)', () => {
  it('asks about the unknown host key with its fingerprint, connects once accepted, and tunnels RFB to the viewer channel', async () => {
    const c = await open(ipcUrl(), harness.origin);
    const saved = await c.call('profiles.save', { profile: profile('bed') });
    expect(saved.ok).toBe(true);
    const id = (saved.value as { id: string }).id;
    const opening = c.call('connections.open', { profileId: id });
    const prompt = await c.nextEvent('prompt');
    expect(prompt).toMatchObject({ kind: 'hostKey', fingerprint: bed.hostKeyFingerprint, port: bed.port });
    expect((await c.call('prompts.answer', { promptId: prompt.promptId, answer: { kind: 'secret', value: 'x' } })).error?.code).toBe('BAD_ARGUMENT');
    expect((await c.call('prompts.answer', { promptId: prompt.promptId, answer: { kind: 'hostKey', decision: 'accept-once' } })).ok).toBe(true);
    const conn = await opening;
    expect(conn).toMatchObject({ ok: true, value: { state: 'ready', profileId: id } });
    // accept-once: nothing written to the app's known_hosts.
    expect(fs.existsSync(path.join(home, 'known_hosts')) ? fs.readFileSync(path.join(home, 'known_hosts'), 'utf8') : '').not.toContain(String(bed.port));
    const connectionId = (conn.value as { id: string }).id;

    const ticket = (await c.call('viewer.open', { connectionId, display: xvnc.display })).value as { url: string; viewerId: string; vncPassword: string | null };
    expect(ticket.url).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${harness.port}/vnc/`));
    expect(ticket.vncPassword).toBeNull();
    const banner = await new Promise<string>((resolve, reject) => {
      const ws = new WebSocket(ticket.url, { origin: harness.origin });
      ws.once('message', (d: Buffer) => { resolve(d.toString('latin1')); ws.close(); });
      ws.once('error', reject);
    });
    expect(banner).toMatch(/^RFB 003\.00\d\n/);
    const stats = (await c.call('viewer.stats', { viewerId: ticket.viewerId })).value as { bytesIn: number };
    expect(stats.bytesIn).toBeGreaterThanOrEqual(12);

    expect((await c.call('connections.close', { connectionId })).ok).toBe(true);
    expect((await c.call('connections.list', {})).value).toEqual([]);
    c.close();
  });

  it('a viewer\'s TurboVNC one-time password is redacted while its viewer is open and no longer registered once it closes', { timeout: 300_000 }, async () => {
    const c = await open(ipcUrl(), harness.origin);
    const saved = await c.call('profiles.save', { profile: profile('bed-otp') });
    const opening = c.call('connections.open', { profileId: (saved.value as { id: string }).id });
    const prompt = await c.nextEvent('prompt');
    await c.call('prompts.answer', { promptId: prompt.promptId, answer: { kind: 'hostKey', decision: 'accept-once' } });
    const connectionId = ((await opening).value as { id: string }).id;
    const started = await c.call('sessions.start', { connectionId, geometry: '640x480', windowManager: 'xterm' });
    expect(started).toMatchObject({ ok: true, value: { flavor: 'turbovnc' } });
    const display = (started.value as { display: number }).display;
    const line = (otp: string) => `vncviewer -password ${otp}`;
    let killed = false;
    try {
      // The password printed at start-up comes with the first ticket; a fresh one is fetched for the next
      // while the ticket goes out, and asked for (viewer.password) as the viewer connects.
      const viewerWithOtp = async (later: boolean) => {
        const t = (await c.call('viewer.open', { connectionId, display })).value as { viewerId: string; vncPassword: string | null; passwordLater: boolean };
        expect(t.passwordLater).toBe(later);
        if (!later) return { viewerId: t.viewerId, vncPassword: t.vncPassword! };
        expect(t.vncPassword).toBeNull();
        const got = (await c.call('viewer.password', { viewerId: t.viewerId })).value as { password: string };
        return { viewerId: t.viewerId, vncPassword: got.password };
      };
      const first = await viewerWithOtp(false);
      expect(first.vncPassword).toMatch(/^\S{8}$/);
      expect(redactSecrets(line(first.vncPassword))).toBe('vncviewer -password [redacted]');
      // A second viewer gets its own fresh OTP; closing the first drops only the first.
      const second = await viewerWithOtp(true);
      expect(second.vncPassword).toMatch(/^\S{8}$/);
      expect(second.vncPassword).not.toBe(first.vncPassword);
      expect((await c.call('viewer.close', { viewerId: first.viewerId })).ok).toBe(true);
      expect(redactSecrets(line(first.vncPassword))).toBe(line(first.vncPassword));
      // A closed viewer's password is not handed out again.
      expect((await c.call('viewer.password', { viewerId: first.viewerId })).error?.code).toBe('BAD_ARGUMENT');
      expect(redactSecrets(line(second.vncPassword))).toBe('vncviewer -password [redacted]');
      // Killing the session closes its viewers, and with them their passwords' registrations.
      expect((await c.call('sessions.kill', { connectionId, display })).ok).toBe(true);
      killed = true;
      expect(redactSecrets(line(second.vncPassword))).toBe(line(second.vncPassword));
    } finally {
      // Here, unlike in afterAll, the harness can still kill it: a failed run leaves no session behind.
      if (!killed) await c.call('sessions.kill', { connectionId, display });
    }
    expect((await c.call('connections.close', { connectionId })).ok).toBe(true);
    c.close();
  });

  it('TurboVNC on a TCP port (the app\'s transport choice); a profile naming that display opens the viewer with no probe and gets a fresh one-time password the server accepts', { timeout: 300_000 }, async () => {
    const c = await open(ipcUrl(), harness.origin);
    const first = await c.call('profiles.save', { profile: profile('bed-tcp-start') });
    const opening = c.call('connections.open', { profileId: (first.value as { id: string }).id });
    await c.call('prompts.answer', { promptId: (await c.nextEvent('prompt')).promptId, answer: { kind: 'hostKey', decision: 'accept-once' } });
    const starter = ((await opening).value as { id: string }).id;
    const started = await c.call('sessions.start', { connectionId: starter, geometry: '640x480', windowManager: 'xterm', transport: 'tcp' });
    expect(started).toMatchObject({ ok: true, value: { flavor: 'turbovnc', unixPath: null, localhostOnly: true } });
    const display = (started.value as { display: number; port: number }).display;
    expect((started.value as { port: number }).port).toBe(5900 + display);
    // The password printed at start-up stays with the connection that started it: another one must fetch its own.
    try {
      const named = await c.call('profiles.save', { profile: profile('bed-tcp-view', { display: { number: display } }) });
      const again = c.call('connections.open', { profileId: (named.value as { id: string }).id });
      await c.call('prompts.answer', { promptId: (await c.nextEvent('prompt')).promptId, answer: { kind: 'hostKey', decision: 'accept-once' } });
      const connectionId = ((await again).value as { id: string }).id;
      // What the window does for such a profile: straight to the viewer, no probe and no session list first.
      const ticket = (await c.call('viewer.open', { connectionId, display })).value as { url: string; viewerId: string; vncPassword: string | null; passwordLater: boolean; remotePort: number | null; flavor: string };
      expect(ticket).toMatchObject({ flavor: 'turbovnc', remotePort: 5900 + display, vncPassword: null, passwordLater: true });
      // The stream keeps what arrives (the greeting comes at once) until the handshake reads it.
      const channel = createWebSocketStream(new WebSocket(ticket.url, { origin: harness.origin }));
      // Asked for while the channel is already open, as the viewer does when the server wants it.
      const otp = ((await c.call('viewer.password', { viewerId: ticket.viewerId })).value as { password: string }).password;
      expect(otp).toMatch(/^\d{8}$/);
      const rfb = await rfbHandshake(channel, otp, { init: true });
      expect(rfb).toMatchObject({ ok: true, width: 640, height: 480 });
      expect(rfb.name).toContain(`:${display}`);
      expect((await c.call('connections.close', { connectionId })).ok).toBe(true);
    } finally {
      expect((await c.call('sessions.kill', { connectionId: starter, display })).ok).toBe(true);
      await c.call('connections.close', { connectionId: starter });
    }
    c.close();
  });

  it('a profile\'s display found last time is used at once and checked again: when the session has moved (TCP → Unix socket), that viewer is closed and the next ticket goes where the server now says', { timeout: 300_000 }, async () => {
    const c = await open(ipcUrl(), harness.origin);
    const hostKey = async (opening: Promise<{ value?: unknown }>) => {
      await c.call('prompts.answer', { promptId: (await c.nextEvent('prompt')).promptId, answer: { kind: 'hostKey', decision: 'accept-once' } });
      return ((await opening).value as { id: string }).id;
    };
    const starter = await hostKey(c.call('connections.open', { profileId: ((await c.call('profiles.save', { profile: profile('bed-move-start') })).value as { id: string }).id }));
    // A display of its own: the session is stopped and started again on the same number, and in that
    // moment another test file's automatic pick (the lowest free display) or the bed's own X servers
    // (:20-:99, bed/xvnc.ts) must not take it. They do not reach :19.
    const display = 19;
    const started = await c.call('sessions.start', { connectionId: starter, display, geometry: '640x480', windowManager: 'xterm', transport: 'tcp' });
    expect(started).toMatchObject({ ok: true, value: { display } });
    let running = true;
    const viewerProfile = ((await c.call('profiles.save', { profile: profile('bed-move-view', { display: { number: display } }) })).value as { id: string }).id;
    type Ticket = { url: string; viewerId: string; remotePort: number | null; remoteSocket: string | null; passwordLater: boolean };
    const handshake = async (t: Ticket) => {
      const channel = createWebSocketStream(new WebSocket(t.url, { origin: harness.origin }));
      const otp = ((await c.call('viewer.password', { viewerId: t.viewerId })).value as { password: string }).password;
      return rfbHandshake(channel, otp, { init: true });
    };
    try {
      // First time: looked up (TCP), and the server accepts the viewer.
      let conn = await hostKey(c.call('connections.open', { profileId: viewerProfile }));
      const first = (await c.call('viewer.open', { connectionId: conn, display })).value as Ticket;
      expect(first).toMatchObject({ remotePort: 5900 + display, remoteSocket: null, passwordLater: true });
      expect(await handshake(first)).toMatchObject({ ok: true, width: 640 });
      await c.call('connections.close', { connectionId: conn });

      // The desktop is started again on the same display, now on a Unix socket only.
      expect((await c.call('sessions.kill', { connectionId: starter, display })).ok).toBe(true);
      running = false;
      const again = await c.call('sessions.start', { connectionId: starter, display, geometry: '800x600', windowManager: 'xterm' });
      running = again.ok === true;
      expect(again).toMatchObject({ ok: true, value: { display, unixPath: expect.stringContaining('.sock') } });

      // The remembered TCP endpoint goes out at once; the check beside it finds the socket and closes that viewer.
      conn = await hostKey(c.call('connections.open', { profileId: viewerProfile }));
      const stale = (await c.call('viewer.open', { connectionId: conn, display })).value as Ticket;
      expect(stale).toMatchObject({ remotePort: 5900 + display, remoteSocket: null, passwordLater: true });
      // Its one-time password is asked for at once, and refused: no password goes to an endpoint
      // that is not this display's session any more (whatever listens on the old port now).
      const refused = await c.call('viewer.password', { viewerId: stale.viewerId });
      expect(refused.value).toBeUndefined();
      expect(refused.error).toMatchObject({ code: 'BAD_ARGUMENT', message: `That viewer is closed: display :${display} has moved` });
      const ws = new WebSocket(stale.url, { origin: harness.origin });
      // Refused (the ticket already revoked) or closed after it opened: either way it ends.
      ws.on('error', () => {});
      await new Promise((resolve) => ws.once('close', resolve));
      await expect.poll(async () => (await c.call('viewer.stats', { viewerId: stale.viewerId })).error?.code).toBe('BAD_ARGUMENT');
      // The retry's ticket names the socket, and the desktop behind it is the new one.
      const fresh = (await c.call('viewer.open', { connectionId: conn, display })).value as Ticket;
      expect(fresh).toMatchObject({ remotePort: null, remoteSocket: (again.value as { unixPath: string }).unixPath });
      expect(await handshake(fresh)).toMatchObject({ ok: true, width: 800, height: 600 });
      await c.call('connections.close', { connectionId: conn });
    } finally {
      // Only ours: a display this test gave up may be another test's by now.
      if (running) expect((await c.call('sessions.kill', { connectionId: starter, display })).ok).toBe(true);
      await c.call('connections.close', { connectionId: starter });
    }
    c.close();
  });

  it('a profile imported with a ProxyCommand connects through it; the window can neither set one nor lose it by editing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-harness-proxy-'));
    const script = path.join(dir, 'proxy.cjs');
    fs.writeFileSync(script, [
      "const fs = require('node:fs'), net = require('node:net'), path = require('node:path');",
      "fs.writeFileSync(path.join(process.argv[2], 'started-' + process.pid), '');",
      'const s = net.connect(Number(process.argv[4]), process.argv[3]);',
      'process.stdin.pipe(s); s.pipe(process.stdout);',
      "s.on('close', () => process.exit(0)); s.on('error', () => process.exit(2));",
    ].join('\n'));
    // What "profiles import-ssh-config" stores for a Host with a ProxyCommand; HostName never resolves.
    const store = new ProfileStore({ file: path.join(home, 'profiles.json'), notice: () => {} });
    const stored = await store.add({
      name: 'via-proxy', host: 'gpu.invalid', port: bed.port, user: bed.user, auth: { kind: 'key-file', path: bed.userKeyPath },
      proxyCommand: `${process.execPath} ${script} ${dir} 127.0.0.1 %p`,
    });
    const c = await open(ipcUrl(), harness.origin);
    const sneaky = await c.call('profiles.save', { profile: { ...profile('sneaky'), proxyCommand: 'touch /tmp/gd-pwned' } });
    expect(sneaky.error?.code).toBe('IPC_BAD_INPUT');
    const edited = await c.call('profiles.save', { profile: { ...profile('via-proxy', { host: 'gpu.invalid' }), id: stored.id, display: { number: 4 } } });
    expect(edited.ok).toBe(true);
    expect(await store.get('via-proxy')).toMatchObject({ display: { number: 4 }, proxyCommand: stored.proxyCommand });
    const opening = c.call('connections.open', { profileId: stored.id });
    const prompt = await Promise.race([
      c.nextEvent('prompt'),
      opening.then((r) => { throw new Error(`the connection ended without asking about the host key: ${JSON.stringify(r.error)}`); }),
    ]);
    expect(prompt).toMatchObject({ kind: 'hostKey', fingerprint: bed.hostKeyFingerprint, host: `[gpu.invalid]:${bed.port}` });
    await c.call('prompts.answer', { promptId: prompt.promptId, answer: { kind: 'hostKey', decision: 'accept-once' } });
    const conn = await opening;
    expect(conn).toMatchObject({ ok: true, value: { state: 'ready' } });
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('started-'))).toHaveLength(1);
    await c.call('connections.close', { connectionId: (conn.value as { id: string }).id });
    c.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a password login goes through the password prompt and the password appears in no log line', async () => {
    if (!bed.password) {
      console.warn('password login test cannot run: the bed runs without root, so its account has no password');
      return;
    }
    fs.appendFileSync(path.join(home, 'known_hosts'), `${bed.knownHostsLine}\n`);
    const c = await open(ipcUrl(), harness.origin);
    const saved = await c.call('profiles.save', { profile: profile('bed-pw', { auth: { kind: 'password', remember: false } }) });
    const opening = c.call('connections.open', { profileId: (saved.value as { id: string }).id });
    // PAM on the bed offers keyboard-interactive ("Password:") before plain password auth.
    const ask = await c.nextEvent('prompt');
    expect(['password', 'keyboardInteractive']).toContain(ask.kind);
    const answer = (v: string | null) => (ask.kind === 'password' ? { kind: 'secret', value: v } : { kind: 'answers', values: v === null ? null : [v] });
    await c.call('prompts.answer', { promptId: ask.promptId, answer: answer(bed.password) });
    const conn = await opening;
    expect(conn.ok).toBe(true);
    // A wrong answer to a fresh attempt is an AUTH_FAILED value, not a hang.
    await c.call('connections.close', { connectionId: (conn.value as { id: string }).id });
    const again = c.call('connections.open', { profileId: (saved.value as { id: string }).id });
    for (let i = 0; i < 3; i++) {
      const p = await Promise.race([c.nextEvent('prompt'), again.then(() => null)]);
      if (!p) break;
      const v = i < 2 ? 'wrong-password' : null;
      await c.call('prompts.answer', { promptId: p.promptId, answer: p.kind === 'keyboardInteractive' ? { kind: 'answers', values: v === null ? null : [v] } : { kind: 'secret', value: v } });
    }
    expect((await again).error?.code).toBe('AUTH_FAILED');
    expect(logs.join('\n')).not.toContain(bed.password);
    expect(fs.readFileSync(path.join(home, 'profiles.json'), 'utf8')).not.toContain(bed.password);
    c.close();
  });
});
