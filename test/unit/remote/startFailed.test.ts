import { describe, expect, it } from 'vitest';
import { startFailed } from '../../../src/core/remote/vncSessions';

// What the wrappers print when the X server does not come up: a generic line, then the log's tail.
const TURBO_LOCKED = `Could not start Xvnc.

TurboVNC Server (Xvnc) 64-bit v3.1.2 (build 20240808)
Copyright (C) 1999-2024 The VirtualGL Project and many others (see README.md)
Visit http://www.TurboVNC.org for more information on TurboVNC

30/11/2026 16:37:49 Using security configuration file /etc/turbovncserver-security.conf
(EE) 
(EE) Fatal server error:
(EE) Server is already active for display 3
	If this server is no longer running, remove /tmp/.X3-lock
	and start again.
(EE) 
`;

const TIGER_PORT = `
Xtigervnc TigerVNC 1.12.0 - built 2022-12-31 15:16
Sun Nov 30 16:37:49 2026
 vncext:      VNC extension running!
 vncext:      Listening for VNC connections on local interface(s), port 5903
 vncext:      Unable to create listening socket: bind: Address already in use (98)
(EE) 
Fatal server error:
(EE) Unable to create listening socket: bind: Address already in use (98)
(EE) 
tigervncserver: /usr/bin/Xtigervnc did not start up, please look into '/home/u/.vnc/host:3.log' to determine the reason! -1
`;

describe('startFailed: one telling line from a wrapper\'s failure output', () => {
  it('names the X server\'s reason, not the generic header or the advice after it', () => {
    expect(startFailed(TURBO_LOCKED).message).toBe('The VNC session did not start: Server is already active for display 3');
  });

  it('takes the fatal error of TigerVNC\'s X server over the wrapper\'s closing line', () => {
    expect(startFailed(TIGER_PORT).message).toBe('The VNC session did not start: Unable to create listening socket: bind: Address already in use (98)');
  });

  it('without a fatal error, takes the last line that says what failed', () => {
    const out = "Starting session via '/usr/bin/xterm'\nSession startup via '/usr/bin/xterm' exited with status 1 too early (< 3 seconds)!\n\nMaybe try something simple first, e.g.,\n\ttigervncserver -xstartup /usr/bin/xterm\n";
    expect(startFailed(out).message).toBe("The VNC session did not start: Session startup via '/usr/bin/xterm' exited with status 1 too early (< 3 seconds)!");
  });

  it('falls back to the generic line, then to the last line, then to "no output"', () => {
    expect(startFailed('Could not start Xvnc.\n\nsuccess!\n').message).toBe('The VNC session did not start: Could not start Xvnc.');
    expect(startFailed('something odd\n').message).toBe('The VNC session did not start: something odd');
    expect(startFailed('\n\n').message).toBe('The VNC session did not start: no output');
  });

  it('says how a silent start ended: its exit status, or the signal that ended it', () => {
    expect(startFailed('', { code: 255, signal: null }).message).toBe('The VNC session did not start: no output (exit status 255)');
    expect(startFailed('', { code: null, signal: 'KILL' }).message).toBe('The VNC session did not start: no output (ended by KILL)');
    // The start script's own line for a wrapper that said nothing, then the session log's tail.
    const silent = "vncserver for display :4 failed (exit status 255) and printed nothing; the end of its log:\n Xtigervnc TigerVNC 1.12.0\n(EE) Fatal server error:\n(EE) Caught signal 15 (Terminated). Server aborting\n";
    expect(startFailed(silent, { code: 255, signal: null }).message).toBe('The VNC session did not start: Caught signal 15 (Terminated). Server aborting');
    expect(startFailed('vncserver for display :4 failed (exit status 255) and printed nothing; the end of its log:\n', { code: 255, signal: null }).message)
      .toBe('The VNC session did not start: vncserver for display :4 failed (exit status 255) and printed nothing; the end of its log:');
  });

  it('never quotes a line about a password', () => {
    const e = startFailed('Password file /home/u/.vnc/gpu-desk-3.passwd: cannot open (hunter22)\n');
    expect(e.message).not.toMatch(/hunter22|passwd/);
    expect(e.message).toBe('The VNC session did not start: no output');
    expect(e.code).toBe('VNC_SESSION_FAILED');
  });
});
