import { describe, expect, it } from 'vitest';
import { inviteCommand, inviteRefusal, parseViewOnlyOtp, viewOnlyInvite } from '../../../src/core/remote/invite';
import type { VncSessionInfo } from '../../../src/core/remote/types';
import type { SshSession } from '../../../src/core/ssh/types';

const tcp: VncSessionInfo = { display: 3, port: 5903, unixPath: null, pid: 10, flavor: 'turbovnc', localhostOnly: true, listenAddresses: ['127.0.0.1'] };
const unix: VncSessionInfo = { ...tcp, display: 4, port: null, unixPath: '/home/u/.vnc/gpu-desk-4.sock', listenAddresses: [] };
const tiger: VncSessionInfo = { ...tcp, display: 5, port: 5905, flavor: 'tigervnc' };

/** An SSH session whose every command prints `out`; the commands it ran are kept. */
function fakeSession(out: string, code = 0): SshSession & { ran: string[] } {
  const ran: string[] = [];
  return { ran, exec: async (c: string) => { ran.push(c); return { stdout: out, stderr: '', code, signal: null }; } } as unknown as SshSession & { ran: string[] };
}

describe('view-only invite (remote/invite.ts)', () => {
  it('reads the password vncpasswd -o -v prints, and never a full-control one', () => {
    expect(parseViewOnlyOtp('View-only one-time password: kq8Zm2Pa\n')).toBe('kq8Zm2Pa');
    expect(parseViewOnlyOtp('Full control one-time password: kq8Zm2Pa\n')).toBeNull();
  });

  it('the colleague\'s command: their login (LOGIN) at this host, its SSH port when not 22, the display', () => {
    expect(inviteCommand({ host: 'gpu1.lab', port: 22 }, 3)).toBe('gpu-desk tunnel LOGIN@gpu1.lab --display 3 --no-password');
    expect(inviteCommand({ host: '127.0.0.1', port: 2222 }, 12)).toBe('gpu-desk tunnel LOGIN@127.0.0.1 -p 2222 --display 12 --no-password');
    expect(inviteCommand({ host: '::1' }, 1)).toBe('gpu-desk tunnel LOGIN@[::1] --display 1 --no-password');
  });

  it('only a TurboVNC desktop of this account on TCP can be shared (another login cannot open a 0600 socket)', () => {
    expect(inviteRefusal([tcp, unix, tiger], 3)).toBeNull();
    expect(inviteRefusal([tcp, unix, tiger], 4)?.message).toMatch(/private Unix socket/);
    expect(inviteRefusal([tcp, unix, tiger], 5)?.message).toMatch(/not a TurboVNC desktop/);
    expect(inviteRefusal([tcp], 9)?.message).toMatch(/not a TurboVNC desktop/);
    expect(inviteRefusal([tcp], 100)?.code).toBe('DISPLAY_OUT_OF_RANGE');
  });

  it('asks the display\'s own vncpasswd for a view-only OTP and returns it with the command and expiry', async () => {
    const s = fakeSession('View-only one-time password: Ab3dEf7h\n');
    const inv = await viewOnlyInvite(s, 3, { host: 'gpu1.lab', port: 22 }, { listing: [tcp] });
    expect(inv).toEqual({ display: 3, password: 'Ab3dEf7h', command: 'gpu-desk tunnel LOGIN@gpu1.lab --display 3 --no-password', expiry: 'one-connection' });
    expect(s.ran).toHaveLength(1);
    expect(s.ran[0]).toContain('vncpasswd" -o -v -display ":$2"');
    expect(s.ran[0]).toMatch(/ \/opt 3$/);
  });

  it('a vncpasswd that fails is an error naming its first line', async () => {
    await expect(viewOnlyInvite(fakeSession('vncpasswd: no such display\n', 1), 3, { host: 'h' }, { listing: [tcp] })).rejects.toThrow(/No view-only password for :3: vncpasswd: no such display/);
  });
});
