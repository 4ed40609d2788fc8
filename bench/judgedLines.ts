/**
 * The judged lines of issue 30 (two machines on one), as pure functions so the arithmetic and the
 * wording are tested apart from the benches that measure the figures.
 */
export interface Judged {
  text: string;
  ok: boolean;
}

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const ratio = (x: number, y: number) => x / Math.max(y, 0.01);

/**
 * bench:3d at the shaped link, frames drawn: (r) program alone, (a) X11 forwarding, (b) gpu-desk,
 * (c) the native viewer. b/a is bounded by what the server renders (r/a), so it is judged against r/a.
 */
export function judge3d(f: { r: number; a: number; b: number; c: number }): Judged[] {
  const bc = ratio(f.b, f.c);
  const br = ratio(f.b, f.r);
  const ba = ratio(f.b, f.a);
  const ra = ratio(f.r, f.a);
  return [
    { text: `b/c ${f2(bc)}x (target >= 1.0x)`, ok: bc >= 1.0 },
    // The native viewer's share of r beside it: when c misses 0.9 of r too, the server's one CPU (the
    // program and Xvnc's encoder together), not the viewer, is what bounds b.
    { text: `b ${f1(f.b)} fps = ${f2(br)} of r ${f1(f.r)} fps (target >= 0.9 of r; beside it the native viewer: c = ${f2(ratio(f.c, f.r))} of r)`, ok: br >= 0.9 },
    { text: `b/a ${f1(ba)}x beside r/a ${f1(ra)}x (what the server renders allows; target b/a >= 0.9 x r/a = ${f1(0.9 * ra)}x)`, ok: ba >= 0.9 * ra },
  ];
}

/** bench:viewer: gpu-desk against the native viewer for one server and size. */
export function judgeViewer(f: {
  pixelRate: { ours: number; native: number };
  cpuPerMpx: { ours: number; native: number; floor: number | null; floorLabel: string; video: number | null; /** Why video mode has no figure. */ videoLabel?: string };
}): Judged[] {
  const pr = ratio(f.pixelRate.ours, f.pixelRate.native);
  const cpu = ratio(f.cpuPerMpx.ours, f.cpuPerMpx.native);
  const beside = [
    f.cpuPerMpx.floor === null ? `floor ${f.cpuPerMpx.floorLabel}` : `floor ${f2(f.cpuPerMpx.floor)} ms/Mpx (${f.cpuPerMpx.floorLabel})`,
    f.cpuPerMpx.video === null ? (f.cpuPerMpx.videoLabel ?? 'video mode not measured') : `video mode ${f2(f.cpuPerMpx.video)} ms/Mpx`,
  ].join(', ');
  return [
    { text: `pixel rate ${f2(pr)}x the native viewer's (target >= 1.0x)`, ok: pr >= 1.0 },
    { text: `desk CPU per Mpixel ${f2(f.cpuPerMpx.ours)} ms = ${f2(cpu)}x the native viewer's ${f2(f.cpuPerMpx.native)} ms (target <= 2.0x; beside it: ${beside})`, ok: cpu <= 2.0 },
  ];
}

/** Key-to-screen against the server's own floor (keyFloor.ts, same run). */
export function judgeKeyToScreen(oursMs: number, floorMs: number): Judged {
  return { text: `key-to-screen ${f1(oursMs)} ms (target <= server floor ${f1(floorMs)} + 3 = ${f1(floorMs + 3)} ms)`, ok: oursMs <= floorMs + 3 };
}

/** Connect → first frame without a login (TurboVNC's "View display N"). */
export function judgeViewDisplay(ms: number): Judged {
  return { text: `View display → first frame ${Math.round(ms)} ms (target <= 100 ms)`, ok: ms <= 100 };
}

export interface LoginPhases {
  /** ms from the start of the connect: TCP + SSH key exchange done. */
  handshake: number | null;
  authentication: number | null;
  /** sshd's session set-up: the forwarded channel opened. */
  session: number | null;
  rfb: number | null;
  total: number;
}

/** A first connect that includes the SSH login, printed by phase, judged against OpenSSH's login in the same run. */
export function judgeFirstConnect(p: LoginPhases, opensshLoginMs: number): Judged {
  const ms = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x)} ms`);
  const phases = `handshake ${ms(p.handshake)}, authentication ${ms(p.authentication)}, session set-up ${ms(p.session)}, RFB ${ms(p.rfb)}`;
  const limit = opensshLoginMs + 100;
  return { text: `first connect with SSH login ${Math.round(p.total)} ms (${phases}; target <= ssh -o BatchMode=yes true ${Math.round(opensshLoginMs)} + 100 = ${Math.round(limit)} ms)`, ok: p.total <= limit };
}
