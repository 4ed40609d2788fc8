import { GpuDeskError } from '../errors';
import type { AuthReport } from './auth';

/** Turn ssh2/socket failures into one-line errors naming the cause and the fix. */
export function mapConnectError(e: unknown, where: string, auth?: AuthReport): GpuDeskError {
  if (e instanceof GpuDeskError) return e;
  const err = e as NodeJS.ErrnoException & { level?: string };
  const code = err?.code;
  const msg = err?.message ?? String(e);
  if (err?.level === 'client-authentication' || /authentication methods failed/i.test(msg)) {
    const tried = auth?.tried.length ? ` (tried ${[...new Set(auth.tried)].join(', ')})` : ' (no usable key, agent or password)';
    const notes = auth?.notes.length ? `; ${auth.notes.slice(0, 3).join('; ')}` : '';
    // A certificate that would have been the way in, but is out of date or for someone else: that first.
    const cert = auth?.certificateProblems?.[0];
    if (cert) {
      return new GpuDeskError('AUTH_FAILED', `Authentication to ${where} failed: ${cert}${tried}`, 'get a new certificate from your site (for example, run its sshproxy or step ssh login again), then connect again');
    }
    return new GpuDeskError(
      'AUTH_FAILED',
      `Authentication to ${where} failed${tried}${notes}`,
      'check the user name, give the right key with -i (or load it into ssh-agent), or use password login',
    );
  }
  if (code === 'ECONNREFUSED') {
    return new GpuDeskError('HOST_UNREACHABLE', `Connection to ${where} was refused`, 'check the host and port (-p), and that sshd is running there');
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new GpuDeskError('DNS_FAILED', `The host name in ${where} could not be resolved`, 'check the spelling, or add a HostName for it in ~/.ssh/config');
  }
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ECONNRESET' || code === 'EPIPE') {
    return new GpuDeskError('HOST_UNREACHABLE', `${where} is unreachable (${code})`, 'check your network or VPN and the host address');
  }
  if (code === 'ETIMEDOUT' || /timed out/i.test(msg)) {
    return new GpuDeskError('CONNECT_TIMEOUT', `Connecting to ${where} timed out`, 'check the host, port and any firewall; slow links may need a longer ConnectTimeout');
  }
  if (/verification failed|host denied/i.test(msg)) {
    return new GpuDeskError('HOST_KEY_REJECTED', `The host key of ${where} was not accepted`, 'check the fingerprint and accept it');
  }
  if (/handshake|kex|no matching/i.test(msg)) {
    return new GpuDeskError('HOST_UNREACHABLE', `SSH handshake with ${where} failed: ${msg}`, 'check that the port is an SSH server and that it supports modern algorithms');
  }
  return new GpuDeskError('HOST_UNREACHABLE', `Connection to ${where} failed: ${msg.split('\n')[0]}`, 'check the host, port and network');
}

/** Key exchange methods OpenSSH offers that ssh2 (and so gpu-desk) cannot do: post-quantum hybrids. */
const POST_QUANTUM_KEX = /^(sntrup761x25519-sha512(@openssh\.com)?|mlkem768x25519-sha256|mlkem\S*)$/;

/**
 * No common key exchange method. A server that offers only post-quantum hybrids (OpenSSH's
 * sntrup761x25519-sha512, OpenSSH 10's mlkem768x25519-sha256) is modern, not old: the gap is ours.
 */
export function kexMismatchError(where: string, offered: string[]): GpuDeskError {
  // ext-info-s and kex-strict-* are markers in the list, not methods.
  const methods = offered.filter((m) => !/^(ext-info-|kex-strict-)/.test(m));
  if (methods.length && methods.every((m) => POST_QUANTUM_KEX.test(m))) {
    return new GpuDeskError(
      'HOST_UNREACHABLE',
      `${where} offers only post-quantum key exchange (${methods.join(', ')}), which gpu-desk's SSH library does not implement yet`,
      'ask the administrator to also allow a classic method in sshd\'s KexAlgorithms (curve25519-sha256, on by default in OpenSSH); until then only OpenSSH\'s own ssh (ssh -L) can reach this server',
    );
  }
  return new GpuDeskError(
    'HOST_UNREACHABLE',
    `${where} offers no key exchange method gpu-desk supports (it offers ${methods.slice(0, 6).join(', ')}${methods.length > 6 ? ', …' : ''})`,
    'ask the administrator to allow curve25519-sha256, ecdh-sha2-nistp256 or diffie-hellman-group14-sha256 in sshd\'s KexAlgorithms',
  );
}
