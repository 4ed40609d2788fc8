import { describe, expect, it } from 'vitest';
import { checkFileName } from '../../../src/core/files/fileName';

describe('names a server gives to downloads', () => {
  it('refuses bidirectional controls (a name that reads as another), naming the cause and the fix', () => {
    expect(() => checkFileName('report\u202Egnp.exe', 'download')).toThrow(expect.objectContaining({ message: expect.stringMatching(/^Cannot download "report\?gnp\.exe": the name contains bidirectional text controls/), fix: expect.stringMatching(/rename the file on the server/) }));
    for (const c of ['\u202A', '\u202D', '\u2066', '\u2069', '\u200F', '\u061C']) expect(() => checkFileName(`a${c}b.txt`, 'download')).toThrow(/bidirectional/);
  });

  it('refuses names Windows reserves or cannot hold', () => {
    for (const n of ['CON', 'nul.txt', 'Com1.log', 'LPT9', 'aux.tar.gz']) expect(() => checkFileName(n, 'download')).toThrow(/reserves this name/);
    for (const n of ['a:b', 'what?.txt', 'star*', 'trailing.', 'trailing ']) expect(() => checkFileName(n, 'download')).toThrow(/Windows cannot hold/);
  });

  it('takes ordinary names, also ones that only look like devices', () => {
    for (const n of ['plot.png', 'console.log', 'com10.txt', '报告.pdf', 'Résumé (1).txt']) expect(checkFileName(n, 'download')).toBe(n);
  });

  it('uploads keep their own rules (names land on the server, not on Windows)', () => {
    expect(checkFileName('a:b', 'upload')).toBe('a:b');
    expect(() => checkFileName('a/b')).toThrow(/Cannot upload/);
  });
});
