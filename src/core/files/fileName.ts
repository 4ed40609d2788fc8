import { GpuDeskError } from '../errors';

/**
 * A name dropped by the user becomes one entry in a server folder: never a path, never `.`/`..`,
 * no NUL or control characters, at most 255 bytes (NAME_MAX on Linux).
 */
export function checkFileName(name: string): string {
  const bad = (why: string) => new GpuDeskError('BAD_ARGUMENT', `Cannot upload "${[...name.slice(0, 80)].map((c) => (c < ' ' || c === '\x7f' ? '?' : c)).join('')}": ${why}`, 'rename the file on this computer and drop it again');
  if (name === '' || name === '.' || name === '..') throw bad('not a file name');
  if (name.includes('/') || name.includes('\\')) throw bad('a file name may not contain / or \\');
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) throw bad('the name contains control characters');
  if (Buffer.byteLength(name) > 255) throw bad('the name is longer than 255 bytes');
  return name;
}

/** Where an upload is written until it is complete: hidden, beside the target, unique per upload. */
export function partName(name: string, tag: string): string {
  const base = Buffer.byteLength(name) > 200 ? name.slice(0, 60) : name;
  return `.${base}.${tag}.gpu-desk-part`;
}
