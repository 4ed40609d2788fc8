import { shellQuote } from './shellQuote';

/**
 * Shell snippets that change files on the server atomically: write a temporary file beside the target,
 * then rename it over the target. A dropped connection or a killed step leaves either the old file or
 * the complete new one, never half of it. Every path and every byte of content goes through shellQuote.
 */

function tempPrologue(target: string): string {
  const t = shellQuote(target);
  return [
    `d=$(dirname -- ${t}) && b=$(basename -- ${t}) && mkdir -p -- "$d" || exit 1`,
    // A write killed outright (SIGKILL cannot be trapped) leaves its hidden temp file; the next write removes it.
    `rm -f -- "$d/.$b.gpu-desk."*`,
    `t=$(mktemp "$d/.$b.gpu-desk.XXXXXX") || exit 1`,
    // A signal (the SSH session going away) exits through the EXIT trap, which removes the temp file.
    `trap 'rm -f -- "$t"' EXIT`,
    `trap 'exit 1' HUP INT TERM PIPE`,
  ].join('\n');
}

function commit(target: string, mode: string): string {
  const t = shellQuote(target);
  return [
    // Keep the mode/owner of a file we replace; new files get `mode`.
    `if [ -e ${t} ]; then chmod --reference=${t} "$t" 2>/dev/null || chmod ${shellQuote(mode)} "$t"; chown --reference=${t} "$t" 2>/dev/null || true; else chmod ${shellQuote(mode)} "$t"; fi`,
    `mv -f -- "$t" ${t} || exit 1`,
    `trap - EXIT HUP INT TERM PIPE`,
  ].join('\n');
}

// A subshell so the snippet's exit/trap stay local when steps compose several snippets.
function subshell(lines: string[]): string {
  return `(\n${lines.join('\n')}\n) || exit 1`;
}

export interface AtomicWriteOptions {
  mode?: string;
  /** Extra commands run after the temporary file is complete and before the rename (tests use it to widen the window). */
  beforeCommit?: string;
}

/** Replace `target` with exactly `content`. */
export function atomicWriteScript(target: string, content: string, opts: AtomicWriteOptions = {}): string {
  return subshell([
    tempPrologue(target),
    `printf '%s' ${shellQuote(content)} > "$t" || exit 1`,
    ...(opts.beforeCommit ? [opts.beforeCommit] : []),
    commit(target, opts.mode ?? '644'),
  ]);
}

/**
 * Make sure each of `lines` is present in `target` (created if missing), keeping everything else.
 * `beforeLine`: insert missing lines before the last line equal to it (Perl config files end in `1;`).
 */
export function ensureLinesScript(target: string, lines: string[], opts: AtomicWriteOptions & { beforeLine?: string } = {}): string {
  const t = shellQuote(target);
  const missing = lines.map((l) => `grep -qxF -- ${shellQuote(l)} ${t} 2>/dev/null || printf '%s\\n' ${shellQuote(l)} >> "$add"`);
  // awk prints the file and puts the added lines before the LAST line equal to `mark` (or at the end).
  const merge = `awk -v mark=${shellQuote(opts.beforeLine ?? '')} 'NR==FNR { a[++n]=$0; next } { l[++m]=$0; if (mark != "" && $0==mark) last=m } END { for (i=1;i<=m;i++) { if (i==last) for (j=1;j<=n;j++) print a[j]; print l[i] } if (!last) for (j=1;j<=n;j++) print a[j] }' "$add" "$src" > "$t" || exit 1`;
  return subshell([
    `src=${t}; [ -e "$src" ] || src=/dev/null`,
    `add=$(mktemp) || exit 1`,
    `trap 'rm -f -- "$add"' EXIT`,
    `trap 'exit 1' HUP INT TERM PIPE`,
    ...missing,
    `if [ ! -s "$add" ]; then rm -f -- "$add"; exit 0; fi`,
    tempPrologue(target),
    `trap 'rm -f -- "$t" "$add"' EXIT`,
    merge,
    `rm -f -- "$add"`,
    ...(opts.beforeCommit ? [opts.beforeCommit] : []),
    commit(target, opts.mode ?? '644'),
  ]);
}

/** Exit 0 when every line is present. */
export function linesPresentCheck(target: string, lines: string[]): string {
  // Braced: callers combine it with || and &&, which have equal precedence in sh.
  return `{ ${lines.map((l) => `grep -qxF -- ${shellQuote(l)} ${shellQuote(target)}`).join(' && ')}; }`;
}
