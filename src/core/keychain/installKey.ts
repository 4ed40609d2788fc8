import { GpuDeskError } from '../errors';
import { shScript } from '../remote/shellQuote';
import type { SshSession } from '../ssh/types';

/**
 * Install / remove a public key in ~/.ssh/authorized_keys of the logged-in account, the way
 * ssh-copy-id does: 700 on ~/.ssh, 600 on the file, the line appended once (a commented-out copy
 * does not count), a missing final newline repaired first, SELinux labels restored when present.
 * The key line and its blob travel as positional arguments ($1, $2), never spliced into the script.
 */
const INSTALL = `set -e
umask 077
d="$HOME/.ssh"; f="$d/authorized_keys"
[ -d "$d" ] || mkdir -p "$d"
chmod 700 "$d"
[ -f "$f" ] || : > "$f"
chmod 600 "$f"
if grep -v '^[[:space:]]*#' "$f" | grep -qF -- "$2"; then echo gpu-desk:present; exit 0; fi
if [ -s "$f" ] && [ -n "$(tail -c 1 "$f")" ]; then printf '\\n' >> "$f"; fi
printf '%s\\n' "$1" >> "$f"
command -v restorecon >/dev/null 2>&1 && restorecon -R "$d" >/dev/null 2>&1 || true
echo gpu-desk:added`;

const REMOVE = `set -e
f="$HOME/.ssh/authorized_keys"
[ -f "$f" ] || { echo gpu-desk:absent; exit 0; }
grep -qF -- "$1" "$f" || { echo gpu-desk:absent; exit 0; }
t=$(mktemp "$HOME/.ssh/.authorized_keys.gpu-desk.XXXXXX")
grep -vF -- "$1" "$f" > "$t" || true
chmod 600 "$t"
mv -f "$t" "$f"
echo gpu-desk:removed`;

const LINE_RE = /^((?:ssh|ecdsa|sk)-[A-Za-z0-9@.-]+) ([A-Za-z0-9+/]+={0,2})(?: [^\r\n]*)?$/;

function splitPublicKey(line: string): { line: string; blob: string } {
  const trimmed = line.trim();
  const m = LINE_RE.exec(trimmed);
  if (!m) throw new GpuDeskError('BAD_ARGUMENT', 'not an OpenSSH public key line ("type base64 [comment]")', 'export it with "gpu-desk keys list" or ssh-keygen -y');
  return { line: trimmed, blob: m[2] };
}

export async function installPublicKey(session: SshSession, publicKey: string): Promise<{ added: boolean }> {
  const { line, blob } = splitPublicKey(publicKey);
  const r = await session.exec(shScript(INSTALL, [line, blob]), { timeoutMs: 30_000 });
  const out = r.stdout.trim().split('\n').pop();
  if (r.code !== 0 || (out !== 'gpu-desk:added' && out !== 'gpu-desk:present')) {
    throw new GpuDeskError('REMOTE_COMMAND_FAILED', `could not update ~/.ssh/authorized_keys on ${session.endpoint.host}: ${(r.stderr.trim().split('\n').pop() || `exit ${r.code}`).slice(0, 200)}`, 'check that the account can write its ~/.ssh directory (disk full, read-only home, ownership)');
  }
  return { added: out === 'gpu-desk:added' };
}

export async function removePublicKeyFromServer(session: SshSession, publicKey: string): Promise<{ removed: boolean }> {
  const { blob } = splitPublicKey(publicKey);
  const r = await session.exec(shScript(REMOVE, [blob]), { timeoutMs: 30_000 });
  const out = r.stdout.trim().split('\n').pop();
  if (r.code !== 0 || (out !== 'gpu-desk:removed' && out !== 'gpu-desk:absent')) {
    throw new GpuDeskError('REMOTE_COMMAND_FAILED', `could not update ~/.ssh/authorized_keys on ${session.endpoint.host}: ${(r.stderr.trim().split('\n').pop() || `exit ${r.code}`).slice(0, 200)}`, 'check the file on the server by hand');
  }
  return { removed: out === 'gpu-desk:removed' };
}

export interface InstallReport {
  added: boolean;
  keyLogin: { ok: true } | { ok: false; code: string; message: string };
}

/** Install, then prove it: `tryKeyLogin` opens a fresh connection offering only that key. */
export async function installAndVerify(session: SshSession, publicKey: string, tryKeyLogin: () => Promise<void>): Promise<InstallReport> {
  const { added } = await installPublicKey(session, publicKey);
  try {
    await tryKeyLogin();
    return { added, keyLogin: { ok: true } };
  } catch (e) {
    const err = e as GpuDeskError;
    return { added, keyLogin: { ok: false, code: err.code ?? 'INTERNAL', message: err.message } };
  }
}
