/**
 * What a remote login name and a host name can be (no Node imports: the renderer's contract uses it too).
 *
 * ssh expands `%r` (user) and `%h`/`%n` (host) into ProxyCommand, which a shell runs, and into
 * UserKnownHostsFile/IdentityFile paths. OpenSSH 9.6 (CVE-2023-51385) refuses shell metacharacters
 * and control characters in user and host names given on the command line; gpu-desk refuses them
 * from every source it does not treat as the user's own config: the command line, profiles
 * (imported ones too) and jump specs. The patterns below narrow what a profile may hold; the
 * validators below are the run-time check where tokens are expanded.
 */

/** A login name: POSIX portable names (letters, digits, ".", "_", "-") and "+"; never "-" or "." first. */
export const LOGIN_NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;
export const LOGIN_NAME_MESSAGE = 'user must be a login name: letters, digits, ".", "_", "+" or "-", not starting with "-" or "."';

/** A host name, IPv4 address or ssh_config alias (IPv6 literals in brackets are in JUMP_SPEC_RE). */
export const HOST_NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** "[user@]host[:port]" as OpenSSH's ProxyJump writes each hop, with user and host as above. */
export const JUMP_SPEC_RE = /^(?:[A-Za-z0-9_][A-Za-z0-9_.+-]*@)?(?:\[[0-9A-Fa-f:.]+(?:%[A-Za-z0-9_.-]+)?\]|[A-Za-z0-9_][A-Za-z0-9_.-]*)(?::\d{1,5})?$/;

/** Characters a shell treats as syntax (OpenSSH's list, plus "$", "\\" and whitespace, which no login name holds). */
// eslint-disable-next-line no-control-regex
const SHELL_OR_CONTROL = /[\s'`"$\\;&<>|(){}\u0000-\u001f\u007f]/;

/** OpenSSH's valid_ruser, stricter: no shell syntax, no control characters, no "/", not "-" first, not "." or "..". */
export function validRemoteUser(s: string): boolean {
  return s.length > 0 && !s.startsWith('-') && !SHELL_OR_CONTROL.test(s) && !s.includes('/') && s !== '.' && s !== '..';
}

/** OpenSSH's valid_hostname: no shell syntax, no control characters, not "-" first. */
export function validRemoteHost(s: string): boolean {
  return s.length > 0 && !s.startsWith('-') && !SHELL_OR_CONTROL.test(s) && !s.includes('/');
}

export const INVALID_USER_MESSAGE = 'remote username contains invalid characters (shell syntax, spaces, "/" or control characters)';
export const INVALID_HOST_MESSAGE = 'hostname contains invalid characters (shell syntax, spaces, "/" or control characters)';
export const INVALID_NAME_FIX = 'give the login name and host name alone: gpu-desk refuses what OpenSSH 9.6 refuses (its fix for CVE-2023-51385), as the name would reach a shell through %r/%h';
