import type { ClientChannel } from 'ssh2';
import { GpuDeskError } from '../../errors';
import { shScript } from '../../remote/shellQuote';
import type { HandlersOf } from '../../../shared/contract';
import { CLIPBOARD_IMAGE_MAX_BYTES, type ClipboardImageResult } from '../../../shared/clipboardImage';

/** What runs the remote commands: the viewer's own SSH connection. */
export interface ClipboardShell {
  execStream(command: string): Promise<ClientChannel>;
}

export interface ClipboardImagesDeps {
  /** The connection and display an open viewer looks at (throws when the viewer is closed). */
  target(viewerId: string): { conn: ClipboardShell; display: number };
  log(line: string): void;
  /** How long one xclip run may take (an X client that owns the selection may never answer). */
  timeoutMs?: number;
}

/** Exit statuses of the scripts below, so the desk can say which tool is missing. */
const NO_XCLIP = 52;
const XSEL_ONLY = 53;
const NO_IMAGE = 54;
const NO_DISPLAY = 55;

/**
 * What every script starts with: the session's display, the account's X authority file when the
 * environment names none (what Xlib itself would read; TurboVNC and TigerVNC write it there), and xclip.
 * xsel is named apart: it is often installed, and it carries text only.
 */
const PRELUDE = [
  'PATH="$PATH:/usr/local/bin"',
  'DISPLAY=":$1"; export DISPLAY',
  '[ -n "$XAUTHORITY" ] || { [ -f "$HOME/.Xauthority" ] && XAUTHORITY="$HOME/.Xauthority" && export XAUTHORITY; }',
  `command -v xclip >/dev/null 2>&1 || { command -v xsel >/dev/null 2>&1 && exit ${XSEL_ONLY}; exit ${NO_XCLIP}; }`,
].join('\n');

/**
 * Desk → server: the PNG arrives on stdin and goes to a private temporary file; xclip takes the
 * selection from that file and forks into the background to serve it, as any X copy does, until
 * something else is copied. Its every descriptor is /dev/null, so this channel closes as soon as the
 * selection is taken (xclip forks only after that) and nothing on the server holds it open. No setsid: a
 * shell's child is no group leader, so setsid would fork and return before xclip had read the file the
 * trap removes; sshd sends no hang-up to a command without a terminal, so xclip outlives the channel anyway.
 */
export const TO_SERVER_SH = `${PRELUDE}
f=$(mktemp "\${TMPDIR:-/tmp}/gpu-desk-clip.XXXXXX") || exit 1
trap 'rm -f "$f"' EXIT
cat >"$f" || exit 1
xclip -selection clipboard -t image/png -i "$f" </dev/null >/dev/null 2>&1 || exit ${NO_DISPLAY}`;

/**
 * Server → desk: the PNG only when the clipboard's owner offers image/png (xclip fails otherwise, slowly).
 * Under timeout(1) where there is one: an owner that never answers would keep xclip waiting after the
 * channel closed (nothing tells a command without a terminal that its channel went).
 */
export const FROM_SERVER_SH = `${PRELUDE}
T=; command -v timeout >/dev/null 2>&1 && T="timeout 10"
t=$($T xclip -selection clipboard -t TARGETS -o 2>/dev/null) || exit ${NO_IMAGE}
case "$t" in *image/png*) ;; *) exit ${NO_IMAGE} ;; esac
exec $T xclip -selection clipboard -t image/png -o 2>/dev/null`;

function checkDisplay(display: number): string {
  if (!Number.isInteger(display) || display < 0 || display > 9999) throw new GpuDeskError('BAD_ARGUMENT', `Display ${display} is not a display number`, 'reconnect the viewer');
  return String(display);
}

function whyOf(code: number | null): ClipboardImageResult {
  if (code === NO_XCLIP) return { ok: false, why: 'noXclip' };
  if (code === XSEL_ONLY) return { ok: false, why: 'xselOnly' };
  if (code === NO_IMAGE) return { ok: false, why: 'noImage' };
  return { ok: false, why: 'failed' };
}

/** Runs a script with optional stdin; stdout kept up to `cap` bytes (past it the run is ended). */
async function run(conn: ClipboardShell, command: string, stdin: Buffer | null, cap: number, timeoutMs: number): Promise<{ code: number | null; out: Buffer | null; timedOut: boolean }> {
  const ch = await conn.execStream(command);
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let bytes = 0;
    let over = false;
    let code: number | null = null;
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; ch.close(); }, timeoutMs);
    ch.on('data', (d: Buffer) => {
      if (over) return;
      bytes += d.length;
      if (bytes > cap) { over = true; parts.length = 0; ch.close(); return; }
      parts.push(d);
    });
    // stderr is drained unread: xclip's errors could quote the clipboard's owner, never worth a log line.
    ch.stderr.resume();
    ch.on('exit', (c: number | null) => { code = c; });
    ch.on('close', () => {
      clearTimeout(timer);
      resolve({ code, out: over ? null : Buffer.concat(parts), timedOut });
    });
    ch.end(stdin ?? undefined);
  });
}

/**
 * clipboard.*: PNG images between the desk's clipboard and the session's X CLIPBOARD selection, with
 * xclip over the viewer's SSH connection (RFB's clipboard carries Latin-1/UTF-8 text only). Nothing of
 * the clipboard's content reaches a log line or an error: only sizes and outcomes.
 */
export class ClipboardImages {
  /** Viewer → the parts of an image on its way to the server (the contract's messages are capped). */
  private readonly incoming = new Map<string, Buffer[]>();

  constructor(private readonly deps: ClipboardImagesDeps) {}

  handlers(): HandlersOf<'clipboard'> {
    return {
      'clipboard.imageToServer': ({ viewerId, part, first, last }) => this.toServer(viewerId, part, first, last),
      'clipboard.imageFromServer': ({ viewerId }) => this.fromServer(viewerId),
    };
  }

  private async toServer(viewerId: string, part: string, first: boolean, last: boolean): Promise<ClipboardImageResult> {
    const { conn, display } = this.deps.target(viewerId);
    // Parts left by a viewer that closed mid-way are dropped when the next image starts.
    if (first) {
      for (const other of this.incoming.keys()) {
        try {
          this.deps.target(other);
        } catch {
          this.incoming.delete(other);
        }
      }
      this.incoming.set(viewerId, []);
    }
    const parts = this.incoming.get(viewerId);
    if (!parts) throw new GpuDeskError('BAD_ARGUMENT', 'An image part came without its first part', 'copy the image again');
    parts.push(Buffer.from(part, 'base64'));
    const size = parts.reduce((n, p) => n + p.length, 0);
    if (size > CLIPBOARD_IMAGE_MAX_BYTES) {
      this.incoming.delete(viewerId);
      return { ok: false, why: 'tooLarge', bytes: size };
    }
    if (!last) return { ok: true, bytes: size };
    this.incoming.delete(viewerId);
    const png = Buffer.concat(parts);
    if (!isPng(png)) throw new GpuDeskError('BAD_ARGUMENT', 'The image to copy is not a PNG', 'copy the image again (the desk offers images as PNG)');
    const r = await run(conn, shScript(TO_SERVER_SH, [checkDisplay(display)]), png, 4096, this.deps.timeoutMs ?? 15_000);
    if (r.timedOut) return { ok: false, why: 'failed' };
    if (r.code !== 0) return whyOf(r.code);
    this.deps.log(`clipboard: an image of ${png.length} bytes went to display :${display}`);
    return { ok: true, bytes: png.length };
  }

  private async fromServer(viewerId: string): Promise<ClipboardImageResult> {
    const { conn, display } = this.deps.target(viewerId);
    const r = await run(conn, shScript(FROM_SERVER_SH, [checkDisplay(display)]), null, CLIPBOARD_IMAGE_MAX_BYTES, this.deps.timeoutMs ?? 15_000);
    if (r.timedOut) return { ok: false, why: 'failed' };
    if (!r.out) return { ok: false, why: 'tooLarge' };
    if (r.code !== 0) return whyOf(r.code);
    if (!isPng(r.out)) return { ok: false, why: 'noImage' };
    this.deps.log(`clipboard: an image of ${r.out.length} bytes came from display :${display}`);
    return { ok: true, bytes: r.out.length, png: r.out.toString('base64') };
  }
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function isPng(b: Buffer): boolean {
  return b.length > PNG_SIGNATURE.length && b.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE);
}
