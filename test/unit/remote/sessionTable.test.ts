import { describe, expect, it } from 'vitest';
import { parseEglProbe, parseProcNetUnixListening, parseTurboVncList, parseVncProcesses } from '../../../src/core/remote/parsers';
import { sessionsFromSections } from '../../../src/core/remote/sessionTable';
import { fx } from './reports';

describe('TurboVNC 3.3 -list, VNC processes, Unix listeners, eglinfo', () => {
  it('TurboVNC 3.3 -list: display, pid, noVNC pid and UDS path columns (empty cells stay empty)', () => {
    expect(parseTurboVncList(fx('turbovnc-list-3.3.txt'))).toEqual([
      { display: 1, port: null, pid: 23316, unixPath: '/home/gdtest/.vnc/gpu-desk-1.sock' },
      { display: 2, port: null, pid: 23434, unixPath: null },
      { display: 4, port: null, pid: 23501, unixPath: '/home/gdtest/.vnc/vm_4.uds' },
    ]);
  });

  it('the account\'s VNC server executables by pid ("(deleted)" after an upgrade still counts)', () => {
    const p = parseVncProcesses('@@ok\n23316 /opt/TurboVNC/bin/Xvnc\n23434 /usr/bin/Xtigervnc (deleted)\ngarbage\n');
    expect([...p]).toEqual([[23316, '/opt/TurboVNC/bin/Xvnc'], [23434, '/usr/bin/Xtigervnc']]);
  });

  it('/proc/net/unix: listening path sockets only (no connected ones, no abstract ones)', () => {
    expect(parseProcNetUnixListening(fx('proc-net-unix.txt'))).toEqual(['/home/gdtest/.vnc/gpu-desk-1.sock', '/tmp/.X11-unix/X1']);
  });

  it('eglinfo -e and each device\'s renderer; no "@@listed" means this eglinfo cannot list devices', () => {
    const sw = parseEglProbe(`@@listed\n${fx('eglinfo-e-llvmpipe.txt')}\n@@dev egl0\n${fx('eglinfo-B-llvmpipe.txt')}`);
    expect(sw).toEqual([{ id: 'egl0', driPath: null, vendor: 'Mesa/X.org', renderer: expect.stringMatching(/^llvmpipe \(LLVM/) }]);
    const gpus = parseEglProbe(`@@listed\n${fx('eglinfo-e-gpus.txt')}@@dev egl0\nOpenGL vendor string: NVIDIA Corporation\nOpenGL renderer string: NVIDIA A100-SXM4-80GB/PCIe/SSE2\n@@dev egl1\nOpenGL vendor string: AMD\nOpenGL renderer string: AMD Radeon Pro W6800 (radeonsi, navi21, LLVM 15.0.7, DRM 3.54)\n`);
    expect(gpus?.map((d) => [d.id, d.driPath, d.vendor])).toEqual([['egl0', '/dev/dri/card1', 'NVIDIA Corporation'], ['egl1', '/dev/dri/card2', 'AMD'], ['egl2', null, null]]);
    expect(parseEglProbe('Usage: eglinfo <device> [-v] [-h]')).toBeNull();
    expect(parseEglProbe('@@listed\n')).toEqual([]);
  });
});

describe('sessionsFromSections: each session once, with its flavour from its executable', () => {
  // Both wrappers list every pid file in the shared ~/.vnc: TurboVNC lists TigerVNC's session and
  // TigerVNC lists TurboVNC's (as stale here, as Debian's wrapper does).
  const sections = {
    turbolist: fx('turbovnc-list-3.3.txt'),
    tigerlist: 'TigerVNC server sessions:\n\nX DISPLAY #\tRFB PORT #\tRFB UNIX PATH\tPROCESS ID #\tSERVER\n1         \t5901      \t             \t23316 (stale)\tXtigervnc\n2         \t5902      \t             \t23434       \tXtigervnc\n',
    vncproc: '@@ok\n23316 /opt/TurboVNC/bin/Xvnc\n23434 /usr/bin/Xtigervnc\n',
    listen: 'State Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nLISTEN 0 5 127.0.0.1:5902 0.0.0.0:* users:(("Xtigervnc",pid=23434,fd=9))\nLISTEN 0 5 [::1]:5902 [::]:* users:(("Xtigervnc",pid=23434,fd=11))\n',
    unixlisten: fx('proc-net-unix.txt'),
  };

  it('a TurboVNC session on a socket and a TigerVNC one on TCP are listed once each; a dead pid file is no session', () => {
    expect(sessionsFromSections(sections, '/opt/TurboVNC/bin')).toEqual([
      { display: 1, port: null, unixPath: '/home/gdtest/.vnc/gpu-desk-1.sock', pid: 23316, flavor: 'turbovnc', localhostOnly: true, listenAddresses: [] },
      { display: 2, port: 5902, unixPath: null, pid: 23434, flavor: 'tigervnc', localhostOnly: true, listenAddresses: ['127.0.0.1', '::1'] },
    ]);
  });

  it('a session whose socket is not (yet) listening has an unknown reach; one whose Xvnc also listens on the network is not local', () => {
    const noSock = sessionsFromSections({ ...sections, unixlisten: '' }, '/opt/TurboVNC/bin');
    expect(noSock.find((s) => s.display === 1)?.localhostOnly).toBeNull();
    const open = sessionsFromSections({ ...sections, listen: `${sections.listen}LISTEN 0 5 0.0.0.0:5901 0.0.0.0:* users:(("Xvnc",pid=23316,fd=8))\n` }, '/opt/TurboVNC/bin');
    expect(open.find((s) => s.display === 1)).toMatchObject({ port: 5901, localhostOnly: false, listenAddresses: ['0.0.0.0'] });
  });

  it('a TigerVNC session does not inherit a .udspath file a killed TurboVNC session left for its display', () => {
    // Seen in CI: TurboVNC's -list paired the TigerVNC session's pid file on :2 with a stale
    // ~/.vnc/<host>:2.udspath from an earlier TurboVNC session there.
    const turbolist = fx('turbovnc-list-3.3.txt').replace(':2\t\t23434\t\t', ':2\t\t23434\t\t\t\t/home/gdtest/.gpu-desk/jobs/2/vnc.sock');
    expect(parseTurboVncList(turbolist).find((l) => l.display === 2)?.unixPath).toBe('/home/gdtest/.gpu-desk/jobs/2/vnc.sock');
    const stale = sessionsFromSections({ ...sections, turbolist }, '/opt/TurboVNC/bin');
    expect(stale.find((s) => s.display === 2)).toMatchObject({ flavor: 'tigervnc', port: 5902, unixPath: null, localhostOnly: true });
    expect(stale.find((s) => s.display === 1)).toMatchObject({ flavor: 'turbovnc', unixPath: '/home/gdtest/.vnc/gpu-desk-1.sock' });
  });

  it('without /proc (no "@@ok"), the lists decide, and the first one to name a display keeps it', () => {
    const r = sessionsFromSections({ ...sections, vncproc: '' }, '/opt/TurboVNC/bin');
    expect(r.map((s) => [s.display, s.flavor])).toEqual([[1, 'turbovnc'], [2, 'turbovnc'], [4, 'turbovnc']]);
  });
});
