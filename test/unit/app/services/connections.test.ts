import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { PromptBroker } from '../../../../src/core/app/prompts';
import { Connections } from '../../../../src/core/app/services/connections';
import type { SshConnection } from '../../../../src/core/ssh/connection';
import type { ConnectOptions } from '../../../../src/core/ssh/types';
import type { ConnectionView, Profile } from '../../../../src/shared/models';
import { memorySecrets } from './fakes';

/** An SSH connection that is up at once; `drop` and `back` play a reconnect. */
class FakeSsh extends EventEmitter {
  state = 'ready';
  label = 'me@gpu1';
  rttMs = 7;
  closed = false;
  sftps = 0;
  constructor(readonly options: ConnectOptions) { super(); }
  async close() { this.closed = true; }
  sftp() { this.sftps++; return Promise.resolve(Object.assign(new EventEmitter(), { n: this.sftps })); }
  async whenReady() {}
  drop() { this.emit('state', { state: 'reconnecting', reason: 'link lost', code: 'CONNECTION_LOST' }); }
  back() { this.emit('state', { state: 'ready' }); }
}

const profile = (id: string, over: Partial<Profile> = {}): Profile => ({ id, name: id, kind: 'server', host: 'gpu1', port: 22, user: 'me', jumpHosts: [], auth: { kind: 'auto' }, display: {}, viewer: {}, forwards: [], ...over }) as unknown as Profile;

function wire(opts: { fail?: (o: ConnectOptions, n: number) => Error | null; secrets?: ReturnType<typeof memorySecrets> } = {}) {
  const events: { event: string; payload: unknown }[] = [];
  const dialed: FakeSsh[] = [];
  const profiles = new Map([['p1', profile('p1')], ['p2', profile('p2', { auth: { kind: 'password', remember: true } })]]);
  const prompts = new PromptBroker((req) => events.push({ event: 'prompt', payload: req }), () => {});
  const c = new Connections({
    emit: (event, payload) => void events.push({ event, payload }),
    prompts,
    secrets: opts.secrets,
    knownHostsFile: '/nonexistent/known_hosts',
    profileById: async (id) => {
      const p = profiles.get(id);
      if (!p) throw Object.assign(new Error('no such profile'), { code: 'PROFILE_NOT_FOUND' });
      return p;
    },
    log: () => {},
    connect: async (o) => {
      const err = opts.fail?.(o, dialed.length);
      const s = new FakeSsh(o);
      dialed.push(s);
      if (err) throw err;
      return s as unknown as SshConnection;
    },
  });
  return { c, events, dialed, states: () => events.filter((e) => e.event === 'connection.state').map((e) => (e.payload as ConnectionView).state) };
}

describe('connections service (fake SSH layer)', () => {
  it('one live connection per profile, handed out ready and non-nullable; NOT_CONNECTED otherwise', async () => {
    const w = wire();
    const h = w.c.handlers();
    const v = await h['connections.open']({ profileId: 'p1' });
    expect(v).toMatchObject({ profileId: 'p1', label: 'me@gpu1', state: 'ready', rttMs: 7 });
    expect((await h['connections.open']({ profileId: 'p1' })).id).toBe(v.id);
    expect(w.dialed).toHaveLength(1);
    const live = w.c.ready(v.id);
    expect(live.conn).toBe(w.dialed[0]);
    expect(live.options.destination).toBe('gpu1');
    expect(() => w.c.ready('c-none')).toThrow(expect.objectContaining({ code: 'NOT_CONNECTED' }));
    w.dialed[0].drop();
    expect(() => w.c.ready(v.id)).toThrow(/is reconnecting/);
    expect(w.c.all().map((x) => x.id)).toEqual([v.id]);
    w.dialed[0].back();
    expect(w.c.ready(v.id)).toBe(live);
    expect(w.states()).toEqual(['connecting', 'ready', 'reconnecting', 'ready']);
  });

  it('closing disposes what the services added to its scope, newest first, before the SSH connection goes, then the closed hooks; the SFTP session is per link', async () => {
    const w = wire();
    const order: string[] = [];
    w.c.onClosed(() => void order.push(`announce (listed: ${w.c.all().length})`));
    const v = await w.c.open('p1');
    w.c.scope(v.id).add(async () => { await new Promise((r) => setTimeout(r, 5)); order.push('files'); });
    w.c.scope(v.id).add(() => void order.push(`viewers (ssh closed: ${w.dialed[0].closed})`));
    const s1 = await w.c.sftp(v.id);
    expect(await w.c.sftp(v.id)).toBe(s1);
    w.dialed[0].drop();
    w.dialed[0].back();
    expect(await w.c.sftp(v.id)).not.toBe(s1);
    await w.c.handlers()['connections.close']({ connectionId: v.id });
    expect(order).toEqual(['viewers (ssh closed: false)', 'files', 'announce (listed: 0)']);
    expect(w.dialed[0].closed).toBe(true);
    expect(w.states().at(-1)).toBe('closed');
    expect(await w.c.handlers()['connections.list']({})).toEqual([]);
  });

  it('a failed dial leaves nothing listed and its questions cancelled; a reconnect runs the ready hooks', async () => {
    const w = wire({ fail: () => Object.assign(new Error('Connection refused'), { code: 'HOST_UNREACHABLE' }) });
    await expect(w.c.open('p1')).rejects.toThrow(/refused/);
    expect(w.c.all()).toEqual([]);
    expect(w.states()).toEqual(['connecting', 'closed']);
    const ok = wire();
    const seen: string[] = [];
    ok.c.onReady((c) => void seen.push(c.id));
    const v = await ok.c.open('p1');
    ok.dialed[0].drop();
    ok.dialed[0].back();
    expect(seen).toEqual([v.id]);
  });

  it('a remembered password is tried first; refused, the profile is dialled again without it (to be asked for)', async () => {
    const secrets = memorySecrets();
    secrets.map.set('password:p2', 'old-pw');
    const w = wire({ secrets, fail: (o, n) => (n === 0 && o.password === 'old-pw' ? Object.assign(new Error('Authentication failed'), { code: 'AUTH_FAILED' }) : null) });
    const v = await w.c.open('p2');
    expect(w.dialed.map((d) => d.options.password)).toEqual(['old-pw', undefined]);
    expect(w.dialed[0].options.agent).toBe(false);
    expect(w.dialed[0].options.identityFiles).toEqual([]);
    expect(v.state).toBe('ready');
  });
});
