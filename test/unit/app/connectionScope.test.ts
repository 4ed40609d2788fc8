import { describe, expect, it } from 'vitest';
import { ConnectionScope } from '../../../src/core/app/connectionScope';

describe('a connection scope', () => {
  it('disposes newest first, one at a time, waiting for each', async () => {
    const order: string[] = [];
    const s = new ConnectionScope();
    s.add(() => void order.push('link'));
    s.add(async () => { await new Promise((r) => setTimeout(r, 5)); order.push('listeners'); });
    s.add(() => void order.push('viewer'));
    await s.dispose();
    expect(order).toEqual(['viewer', 'listeners', 'link']);
    expect(s.isDisposed).toBe(true);
  });

  it('a resource closed before its connection takes itself out; the same function added twice is two registrations', async () => {
    let n = 0;
    const bump = () => void n++;
    const s = new ConnectionScope();
    const remove = s.add(bump);
    s.add(bump);
    remove();
    remove();
    await s.dispose();
    expect(n).toBe(1);
  });

  it('one that throws is logged with the connection, and the rest still run', async () => {
    const lines: string[] = [];
    const ran: string[] = [];
    const s = new ConnectionScope((l) => lines.push(l), 'me@gpu1');
    s.add(() => void ran.push('link'));
    s.add(async () => { throw new Error('channel already gone'); });
    s.add(() => { throw new Error('listener already closed'); });
    await s.dispose();
    expect(ran).toEqual(['link']);
    expect(lines).toEqual(['[me@gpu1] closing: listener already closed', '[me@gpu1] closing: channel already gone']);
  });

  it('disposes once; what is added afterwards (a late reply for a connection that went) is disposed at once', async () => {
    let n = 0;
    const s = new ConnectionScope();
    s.add(() => void n++);
    await s.dispose();
    await s.dispose();
    expect(n).toBe(1);
    const remove = s.add(() => void n++);
    expect(n).toBe(2);
    remove();
    await s.dispose();
    expect(n).toBe(2);
  });

  it('once: one disposer per key however often a service touches its state, and again on a disposed scope', async () => {
    let plans = 0;
    const s = new ConnectionScope();
    s.once('plans', () => void plans++);
    s.once('plans', () => void plans++);
    await s.dispose();
    expect(plans).toBe(1);
    s.once('plans', () => void plans++);
    s.once('plans', () => void plans++);
    expect(plans).toBe(3);
  });
});
