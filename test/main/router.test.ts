import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppCore } from '../../src/core/app/createAppCore';
import { remoteOps } from '../../src/core/app/remoteOps';
import { ProfileStore } from '../../src/core/profiles/profileStore';
import { ChannelHub } from '../../src/core/vnc/channelHub';
import type { IpcResult } from '../../src/shared/bridge';
import { methods, type Handlers } from '../../src/shared/contract';
import type { ConnectionView, Profile, PromptRequest, TunnelView } from '../../src/shared/models';
import { createMainRouter } from '../../src/main/router';
import { createShutdown } from '../../src/main/quit';
import { trayMenuTemplate, trayTooltip } from '../../src/main/menus';
import { isTrustedFrame, type FrameInfo } from '../../src/main/security';
import { APP_ORIGIN } from '../../src/main/windowOptions';
import { cleanupAll, startSshd, startXvnc, type SshdBed, type XvncBed } from '../bed';

/**
 * The main process's IPC router with the real core behind it (profiles file, ssh2 against the
 * bed's OpenSSH sshd, tunnels to the bed's TigerVNC): every contract method with hostile input,
 * the main ones with valid input, and the quit sequence closing what they opened.
 */

const OUR_FRAME: FrameInfo = { webContentsId: 1, url: 'app://gpu-desk/index.html', isMainFrame: true };
const HOSTILE_FRAMES: (FrameInfo | null)[] = [
  { webContentsId: 2, url: 'app://gpu-desk/index.html', isMainFrame: true }, // another WebContents
  { webContentsId: 1, url: 'app://gpu-desk/index.html', isMainFrame: false }, // an iframe in our window
  { webContentsId: 1, url: 'https://evil.example/', isMainFrame: true }, // our window after a navigation
  null, // frame already gone
];
const WRONG_TYPES: unknown[] = [null, 42, 'profiles', [], [{}], true, { toString: 'x' }];
const WRONG_PASSWORD = 'Wr0ng-password-that-must-not-leak-91';

// One valid input per method; the coverage test below fails when the contract grows without a sample here.
function samples(ctx: { profileId: string; connectionId: string; tunnelId: string; display: number }): Record<string, unknown> {
  const profile = {
    name: 'bed-ok', host: '127.0.0.1', port: 22, user: 'gdtest', jumpHosts: [], auth: { kind: 'key-file', path: '/tmp/id' },
    display: { number: 1, geometry: '1280x720' }, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [],
  };
  const c = { connectionId: ctx.connectionId };
  return {
    'app.info': {},
    'app.openExternal': { url: 'http://127.0.0.1:8888/' },
    'app.displays': {},
    'settings.get': {},
    'settings.set': { language: 'zh-CN' },
    'profiles.list': {},
    'profiles.save': { profile },
    'profiles.remove': { id: ctx.profileId },
    'profiles.sshConfigHosts': {},
    'profiles.importSshConfig': { aliases: ['gpu1'] },
    'profiles.exportFile': {},
    'profiles.importFile': { replace: false },
    'profiles.chooseKeyFile': {},
    'keys.list': {},
    'keys.generate': { name: 'laptop' },
    'keys.importFile': { name: 'laptop' },
    'keys.certificate': { name: 'laptop', detach: false },
    'keys.remove': { name: 'laptop', fromProfileId: ctx.profileId, force: false },
    'keys.install': { name: 'laptop', profileId: ctx.profileId },
    'connections.list': {},
    'connections.open': { profileId: ctx.profileId },
    'connections.close': c,
    'connections.test': { profile },
    'prompts.answer': { promptId: 'p1', answer: { kind: 'hostKey', decision: 'reject' } },
    'server.probe': c,
    'server.gpus': c,
    'sessions.list': c,
    'sessions.start': { ...c, display: 5, geometry: '1280x720', windowManager: 'openbox' },
    'sessions.kill': { ...c, display: 5 },
    'sessions.invite': { ...c, display: 5 },
    'setup.plan': c,
    'setup.apply': { ...c, runId: 'r1', sudoPassword: null, planId: 'p1' },
    'viewer.open': { ...c, display: ctx.display },
    'viewer.close': { viewerId: 'v1' },
    'viewer.stats': { viewerId: 'v1' },
    'viewer.gpus': { viewerId: 'v1' },
    'viewer.password': { viewerId: 'v1' },
    'viewer.videoStart': { viewerId: 'v1', width: 1280, height: 720, fps: 30, bitrateKbps: 8000 },
    'viewer.videoStop': { viewerId: 'v1' },
    'tunnels.list': {},
    'tunnels.open': { ...c, display: ctx.display },
    'tunnels.close': { tunnelId: ctx.tunnelId },
    'tunnels.openSaved': { profileId: ctx.profileId },
    'forwards.list': {},
    'forwards.open': { ...c, forwards: [{ kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: 8888 }] },
    'forwards.check': { forwardId: ctx.tunnelId },
    'forwards.close': { forwardId: ctx.tunnelId },
    'files.list': { ...c, path: '/tmp' },
    'files.uploadStart': { ...c, folder: '/tmp', name: 'a.txt', size: 3, overwrite: false },
    'files.uploadChunk': { uploadId: 'u1', offset: 0, data: 'YWJj' },
    'files.uploadFinish': { uploadId: 'u1' },
    'files.uploadCancel': { uploadId: 'u1' },
    'files.download': { ...c, path: '/tmp/a.txt' },
    'clipboard.imageToServer': { viewerId: 'v1', part: 'iVBORw0KGgo=', first: true, last: true },
    'clipboard.imageFromServer': { viewerId: 'v1' },
    'runs.start': { ...c, display: 1, command: 'vkcube', virtualgl: null },
    'runs.output': { runId: 'run-1' },
    'runs.stop': { runId: 'run-1' },
    'clusters.defaults': c,
    'clusters.script': { profileId: ctx.profileId },
    'clusters.submit': { ...c, scriptId: 's1' },
    'clusters.jobs': c,
    'clusters.cancel': { ...c, jobId: '1234' },
    'clusters.viewer': { ...c, jobId: '1234' },
    'clusters.remembered': {},
  };
}

/** Replace every string leaf (except discriminators) with `s`. */
function withStrings(v: unknown, s: string, key = ''): unknown {
  if (typeof v === 'string') return key === 'kind' || key === 'decision' ? v : s;
  if (Array.isArray(v)) return v.length ? v.map((x) => withStrings(x, s)) : [s];
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withStrings(x, s, k)]));
  return v;
}
function hasString(v: unknown): boolean {
  return typeof v === 'string' || (Array.isArray(v) && (v.length === 0 || v.some(hasString))) || (!!v && typeof v === 'object' && Object.values(v).some(hasString));
}

let sshd: SshdBed;
let xvnc: XvncBed;
let core: AppCore;
let hub: ChannelHub;
let dispatch: ReturnType<typeof createMainRouter>;
const calls: string[] = [];
const prompts: PromptRequest[] = [];
const events: string[] = [];
let answerPrompt: (p: PromptRequest) => void = () => {};
const call = (method: string, input: unknown, frame: FrameInfo | null = OUR_FRAME): Promise<IpcResult> => dispatch(frame, method, input);

beforeAll(async () => {
  [sshd, xvnc] = await Promise.all([startSshd(), startXvnc({ geometry: '800x600' })]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gd-router-'));
  hub = new ChannelHub({ allowedOrigins: () => [APP_ORIGIN] });
  const port = await hub.listen();
  core = new AppCore({
    profiles: new ProfileStore({ file: path.join(dir, 'profiles.json'), notice: () => {} }),
    knownHostsFile: path.join(dir, 'known_hosts'),
    settingsFile: path.join(dir, 'settings.json'),
    hub,
    channelBase: () => `ws://127.0.0.1:${port}`,
    emit: (event, payload) => {
      events.push(event);
      if (event === 'prompt') {
        prompts.push(payload as PromptRequest);
        // Answered like the window would: through the router, a tick later.
        setImmediate(() => answerPrompt(payload as PromptRequest));
      }
    },
    remote: remoteOps(),
    shell: 'electron',
    version: '9.9.9-test',
    sshConfigPath: null,
    userKnownHostsFiles: [],
    openExternal: async () => {},
  });
  const real = core.handlers();
  // Count calls that reach the core: hostile input must never get there.
  const counted = Object.fromEntries(Object.entries(real).map(([m, h]) => [m, (i: unknown) => (calls.push(m), (h as (x: unknown) => unknown)(i))])) as unknown as Handlers;
  dispatch = createMainRouter({ handlers: counted, isTrusted: (f) => isTrustedFrame(f, new Set([1]), [APP_ORIGIN]), log: () => {} });
}, 60_000);

afterAll(async () => {
  await core?.shutdown().catch(() => {});
  await hub?.close().catch(() => {});
  await cleanupAll();
});

describe('router × contract: hostile input never reaches the core', () => {
  const ctx = { profileId: 'p-none', connectionId: 'c-none', tunnelId: 't-none', display: 1 };

  it('has a valid sample for every contract method (add one here when the contract grows)', () => {
    expect(Object.keys(samples(ctx)).sort()).toEqual(Object.keys(methods).sort());
  });

  it('a sender that is not our window is refused for every method', async () => {
    calls.length = 0;
    for (const method of Object.keys(methods)) {
      for (const frame of HOSTILE_FRAMES) {
        const r = await call(method, samples(ctx)[method], frame);
        expect(r, `${method} from ${JSON.stringify(frame)}`).toMatchObject({ ok: false, error: { code: 'IPC_BAD_SENDER' } });
      }
    }
    expect(calls).toEqual([]);
  });

  it('wrong types are refused for every method, naming no value', async () => {
    calls.length = 0;
    for (const method of Object.keys(methods)) {
      for (const bad of WRONG_TYPES) {
        const r = await call(method, bad);
        expect(r, `${method} ${JSON.stringify(bad)}`).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
        if (!r.ok) expect(r.error.message).toMatch(new RegExp(`^Invalid input for ${method.replace('.', '\\.')}`));
      }
    }
    expect(calls).toEqual([]);
  });

  it('an extra field is refused for every method and named in the message', async () => {
    calls.length = 0;
    for (const method of Object.keys(methods)) {
      const r = await call(method, { ...(samples(ctx)[method] as object), injectedField: 1 });
      expect(r, method).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
      if (!r.ok) expect(r.error.message, method).toContain('injectedField');
    }
    // …and nested, where the input has objects inside.
    const nested = await call('profiles.save', { profile: { ...(samples(ctx)['profiles.save'] as { profile: object }).profile, isAdmin: true } });
    expect(nested).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
    expect(calls).toEqual([]);
  });

  it('huge strings are refused for every method: 2 MB by the router\'s limits, 100 KB by the contract\'s bounds', async () => {
    calls.length = 0;
    for (const method of Object.keys(methods)) {
      const sample = samples(ctx)[method];
      if (!hasString(sample)) continue;
      for (const size of [2 << 20, 100_000]) {
        const r = await call(method, withStrings(sample, 'A'.repeat(size)));
        expect(r, `${method} ${size}`).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
        if (!r.ok) expect(r.error.message.length).toBeLessThan(400);
      }
    }
    expect(calls).toEqual([]);
  });

  it('unknown and prototype method names are refused', async () => {
    for (const m of ['shell.exec', '__proto__', 'constructor', 'toString', '', 'app.info ', 'APP.INFO']) {
      expect(await call(m, {}), m).toMatchObject({ ok: false, error: { code: 'IPC_UNKNOWN_METHOD' } });
    }
  });
});

describe('router × real core: valid calls', () => {
  let profile: Profile;
  let connection: ConnectionView;
  let tunnel: TunnelView;

  it('app.info and an empty profile list', async () => {
    expect(await call('app.info', {})).toEqual({ ok: true, value: { version: '9.9.9-test', shell: 'electron', platform: process.platform } });
    expect(await call('profiles.list', {})).toEqual({ ok: true, value: [] });
  });

  it('saves a profile for the bed and lists it', async () => {
    const input = (samples({ profileId: '', connectionId: '', tunnelId: '', display: 0 })['profiles.save'] as { profile: Record<string, unknown> }).profile;
    const r = await call('profiles.save', { profile: { ...input, name: 'bed', port: sshd.port, user: sshd.user, auth: { kind: 'key-file', path: sshd.userKeyPath } } });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    profile = (r as { value: Profile }).value;
    expect(profile).toMatchObject({ name: 'bed', host: '127.0.0.1', port: sshd.port });
    const list = await call('profiles.list', {});
    expect(list.ok && (list.value as Profile[]).map((p) => p.id)).toEqual([profile.id]);
  });

  it('clean errors for things that do not exist', async () => {
    const r = await call('server.gpus', { connectionId: 'c-missing' });
    expect(r).toMatchObject({ ok: false, error: { code: 'NOT_CONNECTED' } });
    const p = await call('connections.open', { profileId: 'missing' });
    expect(p).toMatchObject({ ok: false, error: { code: 'PROFILE_NOT_FOUND' } });
  });

  it('connects over real SSH, the host-key prompt answered through the router after checking its fingerprint', async () => {
    answerPrompt = (p) => {
      const ok = p.kind === 'hostKey' && p.fingerprint === sshd.hostKeyFingerprint;
      void call('prompts.answer', { promptId: p.promptId, answer: { kind: 'hostKey', decision: ok ? 'accept-once' : 'reject' } });
    };
    const r = await call('connections.open', { profileId: profile.id });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    connection = (r as { value: ConnectionView }).value;
    expect(connection.state).toBe('ready');
    expect(prompts.map((p) => p.kind)).toEqual(['hostKey']);
    const list = await call('connections.list', {});
    expect(list.ok && (list.value as ConnectionView[]).map((c) => c.state)).toEqual(['ready']);
  });

  it('opens a display tunnel whose local port speaks RFB from the bed\'s Xvnc', async () => {
    const r = await call('tunnels.open', { connectionId: connection.id, display: xvnc.display });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    tunnel = (r as { value: TunnelView }).value;
    expect(tunnel.localHost).toBe('127.0.0.1');
    expect(await rfbBanner(tunnel.localPort)).toMatch(/^RFB 003\.00\d\n$/);
    const list = await call('tunnels.list', {});
    expect(list.ok && (list.value as TunnelView[]).map((t) => t.id)).toEqual([tunnel.id]);
    expect(events).toContain('tunnels.changed');
    // The tray lists it, from the same view the window gets.
    const tray = trayMenuTemplate((list as { value: TunnelView[] }).value, { keepRunningInTray: true, labels: { [connection.id]: connection.label } }, {
      showWindow() {}, copy() {}, openExternal() {}, closeTunnel() {}, closeAllTunnels() {}, openSaved() {}, closeForward() {}, setKeepRunning() {}, quit() {},
    });
    expect(tray.find((i) => i.id === `tunnel:${tunnel.id}`)?.label).toBe(`${connection.label} :${xvnc.display} → 127.0.0.1:${tunnel.localPort}`);
    expect(trayTooltip((list as { value: TunnelView[] }).value)).toBe('gpu-desk — 1 tunnel open');
  });

  it('a wrong password in a prompt fails cleanly, and the password appears nowhere in the error', async () => {
    if (!sshd.password) {
      console.log('password-prompt case not run: the bed has no password account (not root)');
      return;
    }
    const input = (samples({ profileId: '', connectionId: '', tunnelId: '', display: 0 })['profiles.save'] as { profile: Record<string, unknown> }).profile;
    const saved = await call('profiles.save', { profile: { ...input, name: 'bed-pw', port: sshd.port, user: sshd.user, auth: { kind: 'password', remember: false } } });
    expect(saved.ok, JSON.stringify(saved)).toBe(true);
    let asked = 0;
    answerPrompt = (p) => {
      if (p.kind === 'hostKey') void call('prompts.answer', { promptId: p.promptId, answer: { kind: 'hostKey', decision: 'accept-once' } });
      else if (p.kind === 'password') void call('prompts.answer', { promptId: p.promptId, answer: { kind: 'secret', value: asked++ === 0 ? WRONG_PASSWORD : null } });
      else void call('prompts.answer', { promptId: p.promptId, answer: { kind: 'answers', values: null } });
    };
    const r = await call('connections.open', { profileId: (saved as { value: Profile }).value.id });
    expect(r).toMatchObject({ ok: false });
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(r)).not.toContain(WRONG_PASSWORD);
    if (!r.ok) expect(r.error.message).not.toMatch(/\n/);
  });

  it('quitting closes every tunnel and connection cleanly', async () => {
    const shutdown = createShutdown(
      [{ name: 'connections and tunnels', run: () => core.shutdown() }, { name: 'viewer channel', run: () => hub.close() }],
      { timeoutMs: 5000, log: () => {} },
    );
    const result = await shutdown();
    expect(result).toEqual({ clean: true, failed: [], timedOut: false });
    await expect(rfbBanner(tunnel.localPort)).rejects.toThrow(/ECONNREFUSED/);
    expect(await call('connections.list', {})).toEqual({ ok: true, value: [] });
    expect(await call('tunnels.list', {})).toEqual({ ok: true, value: [] });
    // The same promise for a second Quit click, not a second run.
    expect(shutdown()).toBe(shutdown());
  });
});

function rfbBanner(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    s.setTimeout(5000, () => { s.destroy(); reject(new Error('timeout waiting for the RFB banner')); });
    s.once('data', (d) => { s.destroy(); resolve(d.toString('latin1')); });
    s.once('error', reject);
  });
}
