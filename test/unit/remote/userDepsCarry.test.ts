import { describe, expect, it } from 'vitest';
import { distCarrySteps, indexFiles, parseAptSources, wantsDistCarry } from '../../../src/core/remote/userDepsCarry';

describe('the distribution packages the desk carries: reading the server\'s apt configuration', () => {
  it('reads one-line .list sources (options, comments, deb-src left out) and deb822 .sources (several URIs and suites, inline keys, Enabled: no)', () => {
    const text = [
      '@@file /etc/apt/sources.list',
      '# a comment',
      'deb http://archive.ubuntu.com/ubuntu noble main restricted # trailing',
      'deb-src http://archive.ubuntu.com/ubuntu noble main',
      'deb [arch=amd64 signed-by=/usr/share/keyrings/x.gpg trusted=yes] https://example.org/apt stable main',
      '@@file /etc/apt/sources.list.d/debian.sources',
      'Types: deb deb-src',
      '# http://snapshot.debian.org/archive/debian/20250520T000000Z',
      'URIs: http://deb.debian.org/debian',
      'Suites: bookworm bookworm-updates',
      'Components: main',
      'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg',
      '',
      'Types: deb',
      'URIs: http://example.net/a',
      'Suites: s',
      'Components: c',
      'Signed-By:',
      ' -----BEGIN PGP PUBLIC KEY BLOCK-----',
      ' .',
      ' -----END PGP PUBLIC KEY BLOCK-----',
      '',
      'Types: deb',
      'Enabled: no',
      'URIs: http://off.example/',
      'Suites: x',
      'Components: y',
    ].join('\n');
    expect(parseAptSources(text)).toEqual([
      { uri: 'http://archive.ubuntu.com/ubuntu', suite: 'noble', components: ['main', 'restricted'], signedBy: null, trusted: false },
      { uri: 'https://example.org/apt', suite: 'stable', components: ['main'], signedBy: '/usr/share/keyrings/x.gpg', trusted: true },
      { uri: 'http://deb.debian.org/debian', suite: 'bookworm', components: ['main'], signedBy: '/usr/share/keyrings/debian-archive-keyring.gpg', trusted: false },
      { uri: 'http://deb.debian.org/debian', suite: 'bookworm-updates', components: ['main'], signedBy: '/usr/share/keyrings/debian-archive-keyring.gpg', trusted: false },
      { uri: 'http://example.net/a', suite: 's', components: ['c'], signedBy: '\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n -----END PGP PUBLIC KEY BLOCK-----', trusted: false },
    ]);
  });

  it('picks each component\'s Packages index for the architecture from the Release\'s SHA256 list, xz before gz, binary-all only where apt fetches it', () => {
    const sha = (files: string[]) => `SHA256:\n${files.map((f) => ` ${'a'.repeat(64)} 123 ${f}`).join('\n')}\n`;
    const debian = `Architectures: all amd64 arm64\nNo-Support-for-Architecture-all: Packages\n${sha(['main/binary-amd64/Packages', 'main/binary-amd64/Packages.gz', 'main/binary-amd64/Packages.xz', 'contrib/binary-amd64/Packages.gz', 'main/binary-all/Packages.xz'])}`;
    expect(indexFiles(debian, ['main', 'contrib', 'non-free'], 'amd64')).toEqual(['main/binary-amd64/Packages.xz', 'contrib/binary-amd64/Packages.gz']);
    const withAll = `Architectures: all amd64\n${sha(['main/binary-amd64/Packages.xz', 'main/binary-all/Packages.gz'])}`;
    expect(indexFiles(withAll, ['main'], 'amd64')).toEqual(['main/binary-amd64/Packages.xz', 'main/binary-all/Packages.gz']);
  });

  it('carries where asked or where the probe found the mirror unreachable, and only for the steps that fetch distribution packages', () => {
    expect(wantsDistCarry({ reach: { upstream: true, mirror: 'http://deb.debian.org', mirrorReachable: false } }, false)).toBe(true);
    expect(wantsDistCarry({ reach: { upstream: false, mirror: 'http://deb.debian.org', mirrorReachable: true } }, false)).toBe(false);
    expect(wantsDistCarry({ reach: { upstream: true, mirror: 'http://deb.debian.org', mirrorReachable: true } }, true)).toBe(true);
    expect(wantsDistCarry({}, false)).toBe(false);
    expect(distCarrySteps(['user-turbovnc', 'user-deps', 'user-window-manager', 'user-env'])).toEqual(['user-deps', 'user-window-manager']);
  });
});
