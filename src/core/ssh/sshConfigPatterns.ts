import fs from 'node:fs';
import path from 'node:path';

function globToRegExp(pattern: string, flags = ''): RegExp {
  let re = '';
  for (const ch of pattern) {
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else re += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, flags);
}

/**
 * OpenSSH's match_pattern_list(): `*` and `?` wildcards, a `!pattern` that matches vetoes the whole
 * list, otherwise any positive match wins. Host names compare case-insensitively, as ssh lower-cases
 * them before matching.
 */
export function matchPatternList(text: string, patterns: string[], ignoreCase = true): boolean {
  let matched = false;
  for (const raw of patterns.flatMap((p) => p.split(','))) {
    if (!raw) continue;
    const negated = raw.startsWith('!');
    const p = negated ? raw.slice(1) : raw;
    if (globToRegExp(p, ignoreCase ? 'i' : '').test(text)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

const WILD = /[*?[]/;

/** One path segment of glob(3): `*`, `?` and `[…]`; dot files only when the pattern starts with a dot. */
function segmentRegExp(seg: string): RegExp {
  let re = '';
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i];
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else if (ch === '[') {
      const end = seg.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        const body = seg.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = end;
      }
    } else re += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * The files an absolute glob(3) pattern names, sorted as glob sorts them; none when nothing
 * matches (OpenSSH treats that as an Include that matched no files, not an error).
 */
export function globFiles(pattern: string): string[] {
  const parts = pattern.split('/').filter((s, i) => s !== '' || i === 0);
  let dirs = [parts[0] === '' ? '/' : parts[0]];
  for (const seg of parts.slice(1)) {
    const next: string[] = [];
    for (const d of dirs) {
      if (!WILD.test(seg)) {
        const p = path.join(d, seg);
        if (fs.existsSync(p)) next.push(p);
        continue;
      }
      let names: string[];
      try {
        names = fs.readdirSync(d);
      } catch {
        continue;
      }
      const re = segmentRegExp(seg);
      for (const n of names.sort()) if ((seg.startsWith('.') || !n.startsWith('.')) && re.test(n)) next.push(path.join(d, n));
    }
    dirs = next;
  }
  return dirs;
}
