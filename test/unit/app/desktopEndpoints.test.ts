import { PassThrough, type Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DesktopEndpoints, type DesktopHost } from '../../../src/core/app/desktopEndpoints';
import { ConnectionScope } from '../../../src/core/app/connectionScope';
import { redactSecrets } from '../../../src/core/errors';
import type { SessionEndpoint } from '../../../src/core/remote/vncSessions';
import type { StartedSession, VncSessionInfo } from '../../../src/core/remote/types';
import type { SshSession } from '../../../src/core/ssh/types';

/** The server's answer to "where is :N", as the test sets it, with how often it was asked. */
function server() {
  const answers = new Map<number, SessionEndpoint | Error>();
  let asked = 0;
  // One connection's scope: what the store keeps for c1 goes when it is disposed (the connection closed).
  const scope = new ConnectionScope();
  const store = new DesktopEndpoints({
    scope: () => scope,
    lookUp: async (_c, d) => {
      asked++;
      const a = answers.get(d);
      if (a instanceof Error || !a) throw a ?? new Error(`nothing set for :${d}`);
      return a;
    },
  });
  return { store, answers, asked: () => asked, scope };
}

const host: DesktopHost = { connectionId: 'c1', profileId: 'p1', label: 'me@gpu1', conn: {} as SshSession };
const mineTcp = (d: number): SessionEndpoint => ({ kind: 'tcp', host: '127.0.0.1', port: 5900 + d, flavor: 'tigervnc', owner: { kind: 'mine' } });
const squatter = (d: number): SessionEndpoint => ({ kind: 'tcp', host: '127.0.0.1', port: 5900 + d, flavor: null, owner: { kind: 'listener', uid: 1001, user: 'mallory', self: false } });
const session = (d: number): VncSessionInfo => ({ display: d, port: 5900 + d, unixPath: null, pid: 10, flavor: 'tigervnc', localhostOnly: true, listenAddresses: ['127.0.0.1'] }) as VncSessionInfo;

/** Records where each stream was opened to. */
function reacher() {
  const went: SessionEndpoint[] = [];
  return { went, reach: async (e: SessionEndpoint): Promise<Duplex> => { went.push(e); return new PassThrough(); } };
}

describe('DesktopEndpoints: where a display is, and who may be talked to there', () => {
  it("refuses a display another account listens on, naming it, and one nobody serves; this account's or root's listener is fine", async () => {
    const s = server();
    s.answers.set(3, squatter(3));
    await expect(s.store.locate(host, 3)).rejects.toThrow(/^Display :3 of me@gpu1 is not one of your desktops: user mallory \(uid 1001\) listens on its port 5903$/);
    s.answers.set(4, { ...squatter(4), owner: { kind: 'none' } });
    await expect(s.store.locate(host, 4)).rejects.toThrow(/No desktop is running on display :4 of me@gpu1/);
    s.answers.set(5, { ...squatter(5), owner: { kind: 'unknown' } });
    await expect(s.store.locate(host, 5)).rejects.toThrow(/an unknown program/);
    s.answers.set(6, { ...squatter(6), owner: { kind: 'listener', uid: 0, user: 'root', self: false } });
    s.answers.set(7, { ...squatter(7), owner: { kind: 'listener', uid: 1000, user: 'me', self: true } });
    for (const d of [6, 7]) expect((await s.store.locate(host, d)).at).toMatchObject({ port: 5900 + d });
  });

  it('a TCP port from the listing or from last time is connected to only once a fresh look-up still finds the session there', async () => {
    const s = server();
    s.store.listed('c1', [session(2)]);
    // The session ended and another account took its port since the list was shown.
    s.answers.set(2, squatter(2));
    const listed = await s.store.locate(host, 2);
    expect(s.asked()).toBe(0);
    const r = reacher();
    await expect(listed.open(r.reach)).rejects.toThrow(/user mallory/);
    expect(r.went).toEqual([]);

    // Remembered from an earlier viewer: the same rule, and the confirmation says it moved.
    const t = server();
    t.answers.set(8, mineTcp(8));
    await (await t.store.locate(host, 8)).open(reacher().reach);
    t.answers.set(8, squatter(8));
    const again = await t.store.locate(host, 8);
    const r2 = reacher();
    await expect(again.open(r2.reach)).rejects.toThrow(/not one of your desktops/);
    expect(await again.confirmed).toBe('moved');
    expect(r2.went).toEqual([]);
    // The next try looks afresh and is refused before any stream.
    await expect(t.store.locate(host, 8)).rejects.toThrow(/user mallory/);
  });

  it('a remembered desktop that has simply ended is not a move: its stream fails and says so', async () => {
    const s = server();
    s.answers.set(9, mineTcp(9));
    await s.store.locate(host, 9);
    s.answers.set(9, { ...mineTcp(9), flavor: null, owner: { kind: 'none' } });
    const again = await s.store.locate(host, 9);
    expect(await again.confirmed).toBe('same');
    await expect(again.open(reacher().reach)).rejects.toThrow(/No desktop is running on display :9/);
  });

  it('a remembered endpoint that cannot be confirmed counts as moved and is not trusted next time', async () => {
    const s = server();
    s.answers.set(1, mineTcp(1));
    await s.store.locate(host, 1);
    s.answers.set(1, new Error('exec refused'));
    expect(await (await s.store.locate(host, 1)).confirmed).toBe('moved');
    await expect(s.store.locate(host, 1)).rejects.toThrow(/exec refused/);
  });

  it("keeps each session's password: a one-time one goes with one viewer; a TigerVNC one stays for tunnel-only mode; all go with the connection", async () => {
    const bed = server();
    const s = bed.store;
    const p = { connectionId: 'c1', profileId: 'p1' };
    s.started(p, { ...session(3), flavor: 'turbovnc', password: 'otp-3-0123456789', passwordKind: 'otp' } as StartedSession);
    s.started(p, { ...session(4), password: 'tiger-4-0123456789', passwordKind: 'session' } as StartedSession);
    expect(s.flavor('c1')).toBe('tigervnc');
    expect(s.sessionPassword('c1', 3)).toBeNull();
    expect(s.takePassword('c1', 3)?.password).toBe('otp-3-0123456789');
    expect(s.hasPassword('c1', 3)).toBe(false);
    // A newer one-time password made for tunnel-only mode spends a held one (TurboVNC keeps one at a time); a TigerVNC one stays.
    s.started(p, { ...session(6), flavor: 'turbovnc', password: 'otp-6-0123456789', passwordKind: 'otp' } as StartedSession);
    s.replacedOneTime('c1', 6);
    s.replacedOneTime('c1', 4);
    expect(s.hasPassword('c1', 6)).toBe(false);
    expect(redactSecrets('otp-6-0123456789')).toBe('otp-6-0123456789');
    expect(s.sessionPassword('c1', 4)).toBe('tiger-4-0123456789');
    expect(s.takePassword('c1', 4)?.password).toBe('tiger-4-0123456789');
    expect(s.hasPassword('c1', 4)).toBe(true);
    expect(redactSecrets('tiger-4-0123456789')).toBe('[redacted]');
    s.killed(p, 4);
    expect(s.hasPassword('c1', 4)).toBe(false);
    expect(redactSecrets('tiger-4-0123456789')).toBe('tiger-4-0123456789');
    s.started(p, { ...session(5), password: 'tiger-5-0123456789', passwordKind: 'session' } as StartedSession);
    await bed.scope.dispose();
    expect(s.hasPassword('c1', 5)).toBe(false);
    expect(redactSecrets('tiger-5-0123456789')).toBe('tiger-5-0123456789');
  });
});
