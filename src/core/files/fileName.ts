import { GpuDeskError } from '../errors';

/**
 * A name dropped by the user becomes one entry in a server folder: never a path, never `.`/`..`,
 * no NUL or control characters, at most 255 bytes (NAME_MAX on Linux).
 */
export function checkFileName(name: string, dir: 'upload' | 'download' = 'upload'): string {
  const shown = [...name.slice(0, 80)].map((c) => (c < ' ' || c === '\x7f' || BIDI.test(c) ? '?' : c)).join('');
  const bad = (why: string) => new GpuDeskError('BAD_ARGUMENT', `Cannot ${dir} "${shown}": ${why}`, dir === 'upload' ? 'rename the file on this computer and drop it again' : 'rename the file on the server, then download it again');
  if (name === '' || name === '.' || name === '..') throw bad('not a file name');
  if (name.includes('/') || name.includes('\\')) throw bad('a file name may not contain / or \\');
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) throw bad('the name contains control characters');
  if (Buffer.byteLength(name) > 255) throw bad('the name is longer than 255 bytes');
  if (dir === 'download') {
    // A server picks these names: one that reads differently than it is (U+202E turns "gnp.exe" into
    // "exe.png" on screen), or that Windows treats as a device or cannot hold, is not written here.
    if (BIDI.test(name)) throw bad('the name contains bidirectional text controls, which can make it read as another name');
    if (WINDOWS_DEVICE.test(name)) throw bad('Windows reserves this name for a device');
    if (/[<>:"|?*]/.test(name) || /[ .]$/.test(name)) throw bad('Windows cannot hold a name with < > : " | ? * or ending in a space or dot');
  }
  return name;
}

/** Bidirectional formatting characters (embeddings, overrides, isolates, marks). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** CON, PRN, AUX, NUL, COM1–9, LPT1–9, with or without an extension, in any case. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[1-9¹²³]|lpt[1-9¹²³])(\..*)?$/i;

/** Where an upload is written until it is complete: hidden, beside the target, unique per upload. */
export function partName(name: string, tag: string): string {
  const base = Buffer.byteLength(name) > 200 ? name.slice(0, 60) : name;
  return `.${base}.${tag}.gpu-desk-part`;
}
