import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../../../src/core/errors';
import { FileTransfers } from '../../../../src/core/app/services/files';
import { PromptBroker } from '../../../../src/core/app/prompts';
import type { RemoteOps } from '../../../../src/core/app/remoteOps';
import { ClipboardImages } from '../../../../src/core/app/services/clipboardImages';
import { Clusters } from '../../../../src/core/app/services/clusters';
import { DesktopRuns } from '../../../../src/core/app/services/desktopRuns';
import { Connections } from '../../../../src/core/app/services/connections';
import { Forwards } from '../../../../src/core/app/services/forwards';
import { HttpChecks } from '../../../../src/core/app/services/httpChecks';
import { JobRecords } from '../../../../src/core/app/jobRecords';
import { Keys } from '../../../../src/core/app/services/keys';
import { Profiles } from '../../../../src/core/app/services/profiles';
import { Servers } from '../../../../src/core/app/services/servers';
import { DesktopEndpoints } from '../../../../src/core/app/desktopEndpoints';
import { appHandlers, settingsHandlers } from '../../../../src/core/app/services/settings';
import { Tunnels } from '../../../../src/core/app/services/tunnels';
import { Viewers } from '../../../../src/core/app/services/viewers';
import type { ChannelHub } from '../../../../src/core/vnc/channelHub';
import { methodNames, type EventName } from '../../../../src/shared/contract';
import type { Profile } from '../../../../src/shared/models';
import { FakeConnections } from './fakeConnections';

const none = {} as never;

describe('every contract method is served by the service of its namespace', () => {
  it('each service serves only its namespace(s), and together they serve the whole contract once', () => {
    const services: [string[], object][] = [
      [['app'], appHandlers(none)],
      [['settings'], settingsHandlers(none)],
      [['profiles'], new Profiles(none).handlers()],
      [['keys'], new Keys(none).handlers()],
      [['connections'], new Connections(none).handlers()],
      [['prompts'], new PromptBroker(() => {}, () => {}).handlers()],
      [['server', 'sessions', 'setup'], new Servers(none).handlers()],
      [['viewer'], new Viewers(none).handlers()],
      [['clusters'], new Clusters({ emit: () => {} } as never).handlers()],
      [['tunnels'], new Tunnels(none).handlers()],
      [['forwards'], new Forwards(none).handlers()],
      [['files'], new FileTransfers(none).handlers()],
      [['clipboard'], new ClipboardImages(none).handlers()],
      [['runs'], new DesktopRuns(none).handlers()],
    ];
    const served: string[] = [];
    for (const [ns, h] of services) {
      for (const m of Object.keys(h)) {
        expect(ns, `${m} is served by the ${ns.join('/')} service`).toContain(m.split('.')[0]);
        served.push(m);
      }
    }
    expect(served.sort()).toEqual([...methodNames].sort());
  });
});

describe('settings service', () => {
  it('keeps what a change leaves out, and announces every change', async () => {
    const events: EventName[] = [];
    const h = settingsHandlers({ settingsFile: path.join(mkdtempSync(path.join(os.tmpdir(), 'gd-set-')), 'settings.json'), emit: (e) => void events.push(e), systemLocales: () => ['de-DE'] });
    await h['settings.set']({ language: 'zh-CN' });
    const v = await h['settings.set']({ keepRunningInTray: true, language: undefined });
    expect(v).toMatchObject({ language: 'zh-CN', keepRunningInTray: true, systemLocales: ['de-DE'] });
    expect(events).toEqual(['settings.changed', 'settings.changed']);
  });
});

/** A hub that hands out tickets and records what was revoked. */
function fakeHub() {
  const revoked: string[] = [];
  let n = 0;
  const hub = {
    register: () => { n++; return { id: `v${n}`, path: `/ch/v${n}`, counters: { bytesIn: 1, bytesOut: 2, open: false } }; },
    revoke: (id: string) => void revoked.push(id),
  } as unknown as ChannelHub;
  return { hub, revoked };
}

function serversAndViewers() {
  const connections = new FakeConnections();
  const { hub, revoked } = fakeHub();
  const otps: number[] = [];
  const remote = {
    startSession: async (_s: unknown, o: { display?: number }) => ({ display: o.display ?? 3, port: 5903, unixPath: null, pid: 1, flavor: 'turbovnc', localhostOnly: true, password: 'started-session-otp-0123456789', passwordKind: 'otp' }),
    killSession: async () => {},
    endpoint: async (_s: unknown, d: number) => ({ kind: 'tcp', host: '127.0.0.1', port: 5900 + d, flavor: 'turbovnc', owner: { kind: 'mine' } }),
    oneTimePassword: async (_s: unknown, d: number) => { otps.push(d); return `fresh-otp-for-display-${d}-abcdef`; },
  } as unknown as RemoteOps;
  const jobLinksClosed: string[] = [];
  const late = {} as { viewers: Viewers };
  const desktops = new DesktopEndpoints({ lookUp: (conn, d) => remote.endpoint(conn, d), scope: connections.scope });
  const servers = new Servers({ remote, emit: () => {}, ready: connections.ready, desktops, closeDisplay: (c, d) => late.viewers.closeDisplay(c, d) });
  const viewers = new Viewers({ hub, channelBase: () => 'ws://127.0.0.1:9', remote, ready: connections.ready, rttMs: connections.rttMs, measureRtt: async (id) => connections.rttMs(id), jobNode: () => undefined, encoders: async () => ({ best: 'libx264' }), desktops, log: () => {}, closeJobLink: (j) => void jobLinksClosed.push(j) });
  late.viewers = viewers;
  return { connections, servers, viewers, desktops, s: servers.handlers(), v: viewers.handlers(), revoked, otps, jobLinksClosed };
}

describe('servers and viewers services (fake connection layer)', () => {
  it("a session's one-time password goes with one viewer; killing the session closes its viewers; a closed connection releases its passwords", async () => {
    const w = serversAndViewers();
    w.connections.add('c1');
    const started = await w.s['sessions.start']({ connectionId: 'c1', display: 3 });
    expect(started.display).toBe(3);
    expect(redactSecrets('pw started-session-otp-0123456789')).toBe('pw [redacted]');
    const t1 = await w.v['viewer.open']({ connectionId: 'c1', display: 3 });
    expect(t1).toMatchObject({ viewerId: 'v1', url: 'ws://127.0.0.1:9/ch/v1', vncPassword: 'started-session-otp-0123456789', passwordLater: false, remotePort: 5903 });
    expect(w.viewers.imageTarget('v1')).toMatchObject({ display: 3, conn: w.connections.ready('c1').conn });
    expect(await w.v['viewer.stats']({ viewerId: 'v1' })).toMatchObject({ bytesIn: 1, bytesOut: 2, rttMs: 1 });
    // Spent: the next viewer gets a fresh one, fetched beside the ticket.
    const t2 = await w.v['viewer.open']({ connectionId: 'c1', display: 3 });
    expect(t2).toMatchObject({ vncPassword: null, passwordLater: true });
    expect(await w.v['viewer.password']({ viewerId: t2.viewerId })).toEqual({ password: 'fresh-otp-for-display-3-abcdef' });
    await w.s['sessions.kill']({ connectionId: 'c1', display: 3 });
    expect(w.revoked).toEqual(['v1', 'v2']);
    await expect(w.v['viewer.password']({ viewerId: 'v2' })).rejects.toThrow(/That viewer is closed/);
    // Released once its viewer closed.
    expect(redactSecrets('fresh-otp-for-display-3-abcdef')).toBe('fresh-otp-for-display-3-abcdef');

    await w.s['sessions.start']({ connectionId: 'c1', display: 4 });
    await w.v['viewer.open']({ connectionId: 'c1', display: 5 });
    await w.connections.close('c1');
    expect(w.revoked).toEqual(['v1', 'v2', 'v3']);
    expect(w.desktops.hasPassword('c1', 4)).toBe(false);
  });

  it("a job's viewer closes its node link with it", () => {
    const w = serversAndViewers();
    const c2 = w.connections.add('c2');
    w.viewers.adopt({ id: 'jv', connectionId: 'c2', display: 1, counters: { bytesIn: 0, bytesOut: 0, open: false }, release: () => {}, jobId: '4711' }, c2.scope);
    expect(() => w.viewers.imageTarget('jv')).toThrow(/cluster job's desktop/);
    w.viewers.closeJob('4711');
    expect(w.jobLinksClosed).toEqual(['4711']);
    expect(w.revoked).toEqual(['jv']);
  });
});

describe('clusters service', () => {
  it('remembered jobs are those of profiles that still exist; a removed profile forgets its records', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gd-cl-'));
    const profiles = [{ id: 'p1' }, { id: 'p2' }] as Profile[];
    const clusters = new Clusters({
      emit: () => {}, hub: none, channelBase: () => '', jobRecordsFile: path.join(dir, 'jobs.json'), ready: () => { throw new Error('not used'); },
      profileIdOf: () => undefined, profiles: { byId: async () => none, list: async () => profiles }, viewers: { adopt: () => {}, closeJob: () => {} }, log: () => {},
    });
    // Written as an earlier run of the app left them (the file is read on every call).
    const records = new JobRecords(path.join(dir, 'jobs.json'));
    records.add({ profileId: 'p1', jobId: '1', submittedAt: 1, timeLimitSec: null });
    records.add({ profileId: 'p2', jobId: '2', submittedAt: 2, timeLimitSec: null });
    records.add({ profileId: 'gone', jobId: '3', submittedAt: 3, timeLimitSec: null });
    const h = clusters.handlers();
    expect((await h['clusters.remembered']({})).map((r) => r.jobId)).toEqual(['1', '2']);
    clusters.forgetProfile('p2');
    expect((await h['clusters.remembered']({})).map((r) => r.jobId)).toEqual(['1']);
  });
});

describe('keys service', () => {
  it('refuses to remove a key a profile uses before touching anything', async () => {
    const keys = new Keys({
      keys: { get: async () => ({ publicKey: 'ssh-ed25519 AAAA' }), remove: async () => { throw new Error('must not be reached'); } } as never,
      prompts: new PromptBroker(() => {}, () => {}),
      connections: { readyFor: async () => { throw new Error('must not be reached'); }, optionsFor: async () => none },
      profiles: { list: async () => [{ name: 'gpu1', auth: { kind: 'keychain-key', key: 'laptop' } }] as Profile[], useKey: async () => {}, changed: async () => {} },
    });
    await expect(keys.handlers()['keys.remove']({ name: 'laptop', force: false })).rejects.toThrow(/used by gpu1/);
  });

  it('says where keychain keys are not available', async () => {
    const keys = new Keys({ prompts: new PromptBroker(() => {}, () => {}), connections: none, profiles: none });
    await expect(keys.handlers()['keys.list']({})).rejects.toMatchObject({ code: 'KEYCHAIN_UNAVAILABLE' });
  });
});

describe('the HTTP checks cache', () => {
  it('an answer that comes after its connection closed is not kept', async () => {
    let answer: (v: boolean) => void = () => {};
    const checks = new HttpChecks(() => new Promise<boolean>((r) => { answer = r; }));
    const pending = checks.check('c1', 'f1', 1);
    expect(checks.state('c1', 'f1')).toBe('checking');
    checks.drop('c1', 'f1');
    answer(true);
    expect(await pending).toBe('yes');
    expect(checks.size()).toBe(0);
  });
});
