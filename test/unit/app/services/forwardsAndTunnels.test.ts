import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactSecrets } from '../../../../src/core/errors';
import { Forwards } from '../../../../src/core/app/services/forwards';
import { HttpChecks } from '../../../../src/core/app/services/httpChecks';
import { Tunnels } from '../../../../src/core/app/services/tunnels';
import type { RemoteOps } from '../../../../src/core/app/remoteOps';
import type { EventName } from '../../../../src/shared/contract';
import type { TunnelView } from '../../../../src/shared/models';
import { FakeConnections } from './fakeConnections';
import { until } from '../../../helpers/until';

let web: http.Server;
let webPort: number;
let vnc: net.Server;
let vncPort: number;
const listen = async (s: net.Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as net.AddressInfo).port)));

beforeAll(async () => {
  web = http.createServer((_q, r) => r.end('jupyter'));
  webPort = await listen(web);
  vnc = net.createServer((s) => s.end('RFB 003.008\n'));
  vncPort = await listen(vnc);
});
afterAll(() => { web.close(); vnc.close(); });

function wire() {
  const events: { event: EventName; payload: unknown }[] = [];
  const emit = (event: EventName, payload: unknown) => void events.push({ event, payload });
  const connections = new FakeConnections();
  const checks = new HttpChecks();
  // The display's endpoint: the fake "VNC server" above.
  const remote = { endpoint: async () => ({ kind: 'tcp', host: '127.0.0.1', port: vncPort, flavor: null, owner: { kind: 'mine' } }) } as unknown as RemoteOps;
  const forwards = new Forwards({ emit, connections, http: checks });
  const tunnels = new Tunnels({ remote, emit, connections, http: checks, desktops: { sessionPassword: () => null, replacedOneTime: () => {} }, openForwards: (id) => forwards.open(id) });
  // As createAppCore wires them (what each opens goes with its connection's scope).
  connections.onReady((c) => forwards.recheck(c));
  connections.onReady((c) => tunnels.recheck(c));
  return { events, connections, checks, forwards: forwards.handlers(), tunnels: tunnels.handlers() };
}

describe('forwards service (fake connection layer)', () => {
  it('owns its forwards and their HTTP state: a web service says yes, a VNC port no; closing the connection forgets both', async () => {
    const w = wire();
    w.connections.add('c1');
    const opened = await w.forwards['forwards.open']({ connectionId: 'c1', forwards: [
      { kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: webPort },
      { kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: vncPort },
    ] });
    expect(opened.map((f) => [f.remotePort, f.http, f.url !== null])).toEqual([[webPort, 'yes', true], [vncPort, 'no', false]]);
    expect(w.checks.size()).toBe(2);
    await w.forwards['forwards.close']({ forwardId: opened[1].id });
    expect(w.checks.size()).toBe(1);
    await w.connections.close('c1');
    expect(await w.forwards['forwards.list']({})).toEqual([]);
    expect(w.checks.size()).toBe(0);
    await expect(w.forwards['forwards.check']({ forwardId: opened[0].id })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });
});

describe('tunnels service (fake connection layer)', () => {
  it("a tunnel's forward to a service not up yet is not offered as web; after a reconnect it is asked again; the cache goes with the connection", async () => {
    const w = wire();
    const c = w.connections.add('c2');
    // Nothing listens on this port yet: the check says no.
    const closedPort = await new Promise<number>((r) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as net.AddressInfo).port; s.close(() => r(p)); }); });
    const t = await w.tunnels['tunnels.open']({ connectionId: 'c2', display: 1, forwards: [{ kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: closedPort }] });
    expect(t.localPort).toBeGreaterThan(0);
    const fid = c.tunnels.list().find((i) => i.kind === 'forward')!.id;
    await until(() => w.checks.state('c2', fid), (s) => s === 'no', 'the first check');
    const first = await w.tunnels['tunnels.list']({});
    expect(first[0].forwards[0].url).toBeNull();
    // The service comes up on that port; the connection drops and comes back.
    const svc = http.createServer((_q, r) => r.end('tensorboard'));
    await new Promise<void>((r) => svc.listen(closedPort, '127.0.0.1', () => r()));
    try {
      w.connections.reconnected('c2');
      const after = await until(() => w.tunnels['tunnels.list']({}), (ts) => ts[0]?.forwards[0]?.url !== null, 'the forward offered as web after the reconnect');
      expect(after[0].forwards[0].url).toBe(`http://127.0.0.1:${after[0].forwards[0].localPort}/`);
      expect(w.events.some((e) => e.event === 'tunnels.changed' && (e.payload as TunnelView[])[0]?.forwards[0]?.url)).toBe(true);
      await w.connections.close('c2');
      expect(w.checks.size()).toBe(0);
      expect(await w.tunnels['tunnels.list']({})).toEqual([]);
    } finally {
      svc.close();
    }
  });

  it('closing a tunnel closes its forwards and forgets their checks', async () => {
    const w = wire();
    const c = w.connections.add('c3');
    const t = await w.tunnels['tunnels.open']({ connectionId: 'c3', display: 1, forwards: [{ kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: webPort }] });
    await until(() => w.tunnels['tunnels.list']({}), (ts) => ts[0]?.forwards[0]?.url !== null, 'web');
    await w.tunnels['tunnels.close']({ tunnelId: t.id });
    expect(c.tunnels.list()).toEqual([]);
    expect(w.checks.size()).toBe(0);
    const last = w.events.filter((e) => e.event === 'tunnels.changed').at(-1)!.payload as TunnelView[];
    expect(last).toEqual([]);
  });
});

describe("tunnels service: the desktop's password and who serves it", () => {
  it('a TurboVNC desktop of this account comes with a fresh one-time password (redacted while open); another account\'s listener is refused', async () => {
    const connections = new FakeConnections();
    connections.add('c3');
    let owner: 'mine' | 'other' = 'mine';
    const replaced: string[] = [];
    const remote = {
      endpoint: async () => ({ kind: 'tcp', host: '127.0.0.1', port: vncPort, flavor: 'turbovnc', owner: owner === 'mine' ? { kind: 'mine' } : { kind: 'listener', uid: 1001, user: 'mallory', self: false } }),
      oneTimePassword: async () => 'otp-for-the-tunnel-0123',
    } as unknown as RemoteOps;
    const tunnels = new Tunnels({ remote, emit: () => {}, connections, http: new HttpChecks(), desktops: { sessionPassword: () => null, replacedOneTime: (c, d) => void replaced.push(`${c}:${d}`) }, openForwards: async () => [] }).handlers();
    const t = await tunnels['tunnels.open']({ connectionId: 'c3', display: 1, forwards: [] });
    expect(t.oneTimePassword).toBe('otp-for-the-tunnel-0123');
    // TurboVNC keeps one one-time password at a time: one the app held from the start is spent now.
    expect(replaced).toEqual(['c3:1']);
    expect(redactSecrets('otp-for-the-tunnel-0123')).toBe('[redacted]');
    await tunnels['tunnels.close']({ tunnelId: t.id });
    expect(redactSecrets('otp-for-the-tunnel-0123')).toBe('otp-for-the-tunnel-0123');
    owner = 'other';
    await expect(tunnels['tunnels.open']({ connectionId: 'c3', display: 1, forwards: [] })).rejects.toThrow(/not one of your desktops: user mallory \(uid 1001\)/);
    expect(connections.ready('c3').tunnels.list()).toEqual([]);
  });
});

