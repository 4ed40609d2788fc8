import { describe, expect, it } from 'vitest';
import { assembleAlgorithms, DEFAULT_HOST_KEY_ALGORITHMS, keyTypeAccepted, SUPPORTED_HOST_KEY_ALGORITHMS } from '../../../src/core/ssh/algorithms';
import { hostKeyAlgorithms } from '../../../src/core/ssh/connection';
import { hostConfig, parseSshConfig } from '../../../src/core/ssh/sshConfig';

/** Issue 34, low 9: OpenSSH's kex_assemble_names for HostKeyAlgorithms / PubkeyAcceptedAlgorithms. */
const asm = (v: string | undefined) => assembleAlgorithms(v, DEFAULT_HOST_KEY_ALGORITHMS, SUPPORTED_HOST_KEY_ALGORITHMS, 'HostKeyAlgorithms');

describe('HostKeyAlgorithms / PubkeyAcceptedAlgorithms as OpenSSH assembles them', () => {
  it('defaults as OpenSSH ≥ 8.8 (no ssh-rsa); +, -, ^, a plain list and wildcards', () => {
    expect(asm(undefined)).toEqual(['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256']);
    expect(asm('+ssh-rsa')).toEqual([...DEFAULT_HOST_KEY_ALGORITHMS, 'ssh-rsa']);
    expect(asm('-ecdsa-*')).toEqual(['ssh-ed25519', 'rsa-sha2-512', 'rsa-sha2-256']);
    expect(asm('^rsa-sha2-256,ssh-rsa')).toEqual(['rsa-sha2-256', 'ssh-rsa', 'ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512']);
    // Names ssh2 cannot do (certificates, security keys) are left out, not an error.
    expect(asm('ssh-ed25519-cert-v01@openssh.com,sk-ssh-ed25519@openssh.com,ssh-ed25519')).toEqual(['ssh-ed25519']);
    expect(() => asm('ssh-ed25519-cert-v01@openssh.com')).toThrow(/leaves no algorithm/);
    expect(() => asm('-*')).toThrow(/leaves no algorithm/);
  });

  it('pinned key types narrow the list, and never bring ssh-rsa back', () => {
    expect(hostKeyAlgorithms(['ssh-rsa'])).toEqual(['rsa-sha2-512', 'rsa-sha2-256']);
    expect(hostKeyAlgorithms(['ssh-rsa'], asm('+ssh-rsa'))).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']);
    expect(hostKeyAlgorithms(['ssh-dss'])).toEqual([]);
    expect(hostKeyAlgorithms(['ssh-dss'], asm('+ssh-dss'))).toEqual(['ssh-dss']);
  });

  it('an RSA key signs with rsa-sha2-* or ssh-rsa; other keys need their own name', () => {
    expect(keyTypeAccepted('ssh-rsa', DEFAULT_HOST_KEY_ALGORITHMS)).toBe(true);
    expect(keyTypeAccepted('ssh-rsa', ['ssh-ed25519'])).toBe(false);
    expect(keyTypeAccepted('ssh-dss', DEFAULT_HOST_KEY_ALGORITHMS)).toBe(false);
    expect(keyTypeAccepted('ssh-ed25519', DEFAULT_HOST_KEY_ALGORITHMS)).toBe(true);
  });

  it('ssh_config: both settings read per host, PubkeyAcceptedKeyTypes as the old name', () => {
    const cfg = parseSshConfig(['Host old', '  HostKeyAlgorithms +ssh-rsa', '  PubkeyAcceptedKeyTypes +ssh-rsa', 'Host new', '  PubkeyAcceptedAlgorithms -rsa-sha2-*'].join('\n'), 'cfg');
    expect(hostConfig(cfg, 'old')).toMatchObject({ hostKeyAlgorithms: '+ssh-rsa', pubkeyAcceptedAlgorithms: '+ssh-rsa' });
    expect(hostConfig(cfg, 'new')).toMatchObject({ pubkeyAcceptedAlgorithms: '-rsa-sha2-*' });
    expect(hostConfig(cfg, 'new').hostKeyAlgorithms).toBeUndefined();
  });
});
