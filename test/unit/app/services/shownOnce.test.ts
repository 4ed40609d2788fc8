import { describe, expect, it } from 'vitest';
import type { RemoteOps } from '../../../../src/core/app/remoteOps';
import { DesktopEndpoints } from '../../../../src/core/app/desktopEndpoints';
import { Servers } from '../../../../src/core/app/services/servers';
import { ShownOnce } from '../../../../src/core/app/shownOnce';
import { FakeConnections } from './fakeConnections';

/**
 * Issue 34, low 10: root and job operations run only what the window was shown. Before, setup.apply
 * made a plan from whatever options the window sent and ran it, reviewed or not.
 */
describe('set-up runs only the plan the window was shown', () => {
  function servers() {
    const connections = new FakeConnections();
    connections.add('c1');
    connections.add('c2');
    const applied: unknown[] = [];
    let n = 0;
    const remote = {
      plan: async () => ({ distro: 'debian-12', backend: 'egl', steps: [{ id: `step-${++n}` }], notes: [] }),
      apply: async (_c: unknown, plan: unknown) => { applied.push(plan); return { ok: true, steps: [] }; },
    } as unknown as RemoteOps;
    const s = new Servers({ remote, emit: () => {}, ready: connections.ready, desktops: new DesktopEndpoints({ lookUp: async () => { throw new Error('not asked'); }, scope: connections.scope }), closeDisplay: () => {} });
    return { h: s.handlers(), applied, connections };
  }

  it('applies exactly the plan shown under its id, once, on its own connection', async () => {
    const { h, applied } = servers();
    const shown = await h['setup.plan']({ connectionId: 'c1' });
    await h['setup.plan']({ connectionId: 'c1' });
    expect(shown.planId).toMatch(/^[A-Za-z0-9_-]{16}$/);
    await expect(h['setup.apply']({ connectionId: 'c2', runId: 'r', sudoPassword: null, planId: shown.planId })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    await expect(h['setup.apply']({ connectionId: 'c1', runId: 'r', sudoPassword: null, planId: 'made-up' })).rejects.toThrow(/not one this window was shown/);
    expect(applied).toHaveLength(0);
    await h['setup.apply']({ connectionId: 'c1', runId: 'r', sudoPassword: null, planId: shown.planId });
    expect(applied).toEqual([expect.objectContaining({ steps: [{ id: 'step-1' }] })]);
    await expect(h['setup.apply']({ connectionId: 'c1', runId: 'r', sudoPassword: null, planId: shown.planId })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });

  it('a closed connection takes its shown plans with it', async () => {
    const { h, connections } = servers();
    const shown = await h['setup.plan']({ connectionId: 'c1' });
    await connections.close('c1');
    // The same id again, so the refusal is the plan's, not NOT_CONNECTED.
    connections.add('c1');
    await expect(h['setup.apply']({ connectionId: 'c1', runId: 'r', sudoPassword: null, planId: shown.planId })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });
});

describe('what was shown, kept by id', () => {
  it('keeps only the newest when the window asks for many', () => {
    const a = new ShownOnce<number>('job script', 50, 2);
    const first = a.keep('p', 1);
    const second = a.keep('p', 2);
    const third = a.keep('p', 3);
    expect(() => a.take(first, 'p')).toThrow(/job script/);
    expect(a.take(second, 'p')).toBe(2);
    expect(a.take(third, 'p')).toBe(3);
  });
});
