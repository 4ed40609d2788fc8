import type { GpuDeskApi } from '../../shared/contract';
import { CLIPBOARD_IMAGE_MAX_BYTES, CLIPBOARD_IMAGE_PART_BYTES, type ClipboardImageResult } from '../../shared/clipboardImage';
import { CLIPBOARD_MAX_CHARS } from './serverClipboard';

/** What the viewer tells the person about a clipboard move (a key of viewer:clipSync, with its values). */
export interface ClipNote {
  key: 'imageToServer' | 'imageFromServer' | 'tooLarge' | 'tooLargeServer' | 'noXclip' | 'xselOnly' | 'denied' | 'failed' | 'noImage' | 'textTooLarge';
  size?: string;
}

export interface ClipboardSyncDeps {
  api: GpuDeskApi;
  viewerId(): string | null;
  /** Text to the server's clipboard (RFB ClientCutText). */
  sendText(text: string): void;
  note(n: ClipNote): void;
}

const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
const kib = (n: number) => (n < 1048576 ? `${Math.max(1, Math.round(n / 1024))} KiB` : mib(n));

async function digest(b: Blob | string): Promise<string> {
  const bytes = typeof b === 'string' ? new TextEncoder().encode(b) : new Uint8Array(await b.arrayBuffer());
  const h = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(h, (x) => x.toString(16).padStart(2, '0')).join('');
}

function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function permissionState(): Promise<PermissionState | 'unknown'> {
  try {
    return (await navigator.permissions.query({ name: 'clipboard-read' as PermissionName })).state;
  } catch {
    return 'unknown';
  }
}

type Desk = { kind: 'image'; blob: Blob } | { kind: 'text'; text: string } | { kind: 'empty' };

/**
 * The desk's clipboard and the server's kept in step while the viewer has focus, as VNC viewers and
 * Remote Desktop do: what the desk holds that the server has not seen goes to the server (text through
 * RFB, a PNG through xclip over SSH); otherwise a PNG the server's clipboard holds comes to the desk.
 * Each side's last content is remembered by its digest, so a focus that changed nothing moves nothing,
 * and what one side just received is never sent back to it.
 */
export class ClipboardSync {
  /** Digest of what the desk's clipboard held when last looked at (or was given by us). */
  private deskSeen: string | null = null;
  /** Digest of the image the server's clipboard last held, from either side. */
  private serverImage: string | null = null;
  private busy: Promise<void> | null = null;
  private wantPull = false;
  private deniedSaid = false;
  /** The desk's clipboard refused the last reading: the watch stops asking until the next focus. */
  private refused = false;

  constructor(private readonly deps: ClipboardSyncDeps) {}

  /** The server's text came to the desk (ServerCutText): it is not news to send back. */
  async noteDeskText(text: string): Promise<void> {
    this.deskSeen = await digest(text);
  }

  /**
   * The viewer gained focus (pullImage), or the desk may have changed while it has it: one round at a
   * time; a focus that comes during a watch round gets a round of its own right after it.
   */
  sync(opts: { pullImage: boolean }): Promise<void> {
    if (opts.pullImage) this.wantPull = true;
    this.busy ??= (async () => {
      try {
        do {
          const pullImage = this.wantPull;
          this.wantPull = false;
          // A round that fails (the viewer closing under it) leaves the next one to try again.
          await this.round({ pullImage }).catch(() => {});
        } while (this.wantPull);
      } finally {
        this.busy = null;
      }
    })();
    return this.busy;
  }

  /** "Paste image from server": the server's PNG to the desk even when it seems unchanged. */
  async pasteImageFromServer(): Promise<void> {
    await this.busy;
    this.serverImage = null;
    await this.pullImage(true);
  }

  private async round({ pullImage }: { pullImage: boolean }): Promise<void> {
    // A browser that asks the person on each reading would ask every few seconds otherwise.
    if (!pullImage && this.refused) return;
    const desk = await this.readDesk();
    if (desk && desk.kind !== 'empty') {
      const d = await digest(desk.kind === 'image' ? desk.blob : desk.text);
      if (d !== this.deskSeen) {
        this.deskSeen = d;
        // The desk's newer copy wins: the server's older image is not pulled over it.
        if (desk.kind === 'text') this.pushText(desk.text);
        else await this.pushImage(desk.blob, d);
        return;
      }
    }
    if (pullImage) await this.pullImage(false);
  }

  private async readDesk(): Promise<Desk | null> {
    const cb = navigator.clipboard;
    if (!cb) return null;
    try {
      const desk = await this.readDeskOnce(cb);
      this.refused = false;
      return desk;
    } catch (e) {
      if ((e as DOMException)?.name !== 'NotAllowedError') return null;
      this.refused = true;
      // Said once, and only when the person (or the app's policy) has blocked it: while the browser
      // may still ask ("prompt"), its own question is the hint.
      if (!this.deniedSaid && (await permissionState()) === 'denied') {
        this.deniedSaid = true;
        this.deps.note({ key: 'denied' });
      }
      return null;
    }
  }

  private async readDeskOnce(cb: Clipboard): Promise<Desk> {
    if (!cb.read) return { kind: 'text', text: await cb.readText() };
    const items = await cb.read();
    for (const it of items) if (it.types.includes('image/png')) return { kind: 'image', blob: await it.getType('image/png') };
    for (const it of items) if (it.types.includes('text/plain')) return { kind: 'text', text: await (await it.getType('text/plain')).text() };
    return { kind: 'empty' };
  }

  private pushText(text: string): void {
    if (!text) return;
    if (text.length > CLIPBOARD_MAX_CHARS) {
      this.deps.note({ key: 'textTooLarge', size: mib(text.length) });
      return;
    }
    this.deps.sendText(text);
  }

  private async pushImage(blob: Blob, d: string): Promise<void> {
    const viewerId = this.deps.viewerId();
    if (!viewerId) return;
    if (blob.size > CLIPBOARD_IMAGE_MAX_BYTES) {
      this.deps.note({ key: 'tooLarge', size: mib(blob.size) });
      return;
    }
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let r: ClipboardImageResult = { ok: false, why: 'failed' };
    try {
      for (let off = 0; off === 0 || off < bytes.length; off += CLIPBOARD_IMAGE_PART_BYTES) {
        const last = off + CLIPBOARD_IMAGE_PART_BYTES >= bytes.length;
        r = await this.deps.api.invoke('clipboard.imageToServer', { viewerId, part: base64(bytes.subarray(off, off + CLIPBOARD_IMAGE_PART_BYTES)), first: off === 0, last });
        if (!r.ok) break;
      }
    } catch {
      r = { ok: false, why: 'failed' };
    }
    if (r.ok) {
      this.serverImage = d;
      this.deps.note({ key: 'imageToServer', size: kib(bytes.length) });
    } else this.sayWhy(r.why, r.bytes ?? bytes.length);
  }

  private async pullImage(asked: boolean): Promise<void> {
    const viewerId = this.deps.viewerId();
    if (!viewerId) return;
    let r: ClipboardImageResult;
    try {
      r = await this.deps.api.invoke('clipboard.imageFromServer', { viewerId });
    } catch {
      r = { ok: false, why: 'failed' };
    }
    if (!r.ok) {
      // Checked on every focus: an empty or text-only server clipboard, or no xclip, is only said when asked.
      if (asked || r.why === 'tooLarge') this.sayWhy(r.why, r.bytes);
      return;
    }
    const png = fromBase64(r.png ?? '');
    const blob = new Blob([png], { type: 'image/png' });
    const d = await digest(blob);
    if (d === this.serverImage) return;
    this.serverImage = d;
    try {
      await navigator.clipboard.write([new ClipboardItem({ 'image/png': blob })]);
      // The browser re-encodes what it puts on its clipboard: what it now holds is read back as seen.
      const back = await this.readDesk();
      if (back?.kind === 'image') this.deskSeen = await digest(back.blob);
      this.deps.note({ key: 'imageFromServer', size: kib(png.length) });
    } catch (e) {
      this.serverImage = null;
      this.deps.note({ key: (e as DOMException)?.name === 'NotAllowedError' ? 'denied' : 'failed' });
    }
  }

  private sayWhy(why: Exclude<ClipboardImageResult, { ok: true }>['why'], bytes?: number): void {
    if (why === 'tooLarge') this.deps.note(bytes ? { key: 'tooLarge', size: mib(bytes) } : { key: 'tooLargeServer' });
    else this.deps.note({ key: why });
  }
}
