import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { escapeServerText } from '../../../src/core/serverText';
import { jsonText, writeLine, type CliIo } from '../../../src/core/cli/io';
import { terminalCallbacks } from '../../../src/core/cli/sshOptions';
import { PromptBroker } from '../../../src/core/app/prompts';
import type { PromptRequest } from '../../../src/shared/models';

describe('escapeServerText: strnvis(VIS_SAFE | VIS_OCTAL) for server text (issue 16.5)', () => {
  it('C0 controls, DEL, C1 controls and bidi overrides become \\ooo per UTF-8 byte', () => {
    expect(escapeServerText('a\x1b[2Jb')).toBe('a\\033[2Jb');
    expect(escapeServerText('\x1b]0;title\x07')).toBe('\\033]0;title\\007');
    expect(escapeServerText('\x00\x08\x7f')).toBe('\\000\\010\\177');
    expect(escapeServerText('\u009b31m')).toBe('\\302\\23331m');
    expect(escapeServerText('\u202egnp.exe')).toBe('\\342\\200\\256gnp.exe');
    expect(escapeServerText('\u2066x\u2069')).toBe('\\342\\201\\246x\\342\\201\\251');
  });
  it('keeps printable text, UTF-8 and backslashes; tab and newline stay, CRLF becomes a newline, a lone CR is escaped', () => {
    const plain = 'Grüße 日本 🚀 C:\\path\\033 (already text)\tcol';
    expect(escapeServerText(plain)).toBe(plain);
    expect(escapeServerText('one\r\ntwo\n')).toBe('one\ntwo\n');
    expect(escapeServerText('fake\rreal')).toBe('fake\\015real');
  });
  it('single-line mode escapes newlines too', () => {
    expect(escapeServerText('Code:\nfor you', { multiline: false })).toBe('Code:\\012for you');
  });
});

describe('the CLI prints through it', () => {
  const read = (s: PassThrough) => (s.read() as Buffer | null)?.toString('utf8') ?? '';

  it('writeLine escapes; jsonText gives the same value with unsafe characters as \\u escapes', () => {
    const out = new PassThrough();
    writeLine(out, 'GPU \x1b[31mred\u009b');
    expect(read(out)).toBe('GPU \\033[31mred\\302\\233\n');
    const value = { name: 'GPU \x1b[31m\u009b\u202e\x7f' };
    const text = jsonText(value);
    expect(JSON.parse(text)).toEqual(value);
    for (const c of ['\x1b', '\x7f', '\u009b', '\u202e']) expect(text).not.toContain(c);
    writeLine(out, text);
    expect(read(out)).toBe(text + '\n');
  });

  it('keyboard-interactive name, instructions and prompts from the server are shown escaped', async () => {
    const stdin = new PassThrough();
    const stderr = new PassThrough();
    const io: CliIo = { stdin, stdout: new PassThrough(), stderr, interactive: true, env: {} };
    const cb = terminalCallbacks(io);
    const answer = cb.keyboardInteractive!({
      name: 'Duo\x1b]0;x\x07',
      instructions: 'Read\x1b[1A\x1b[2K carefully',
      prompts: [{ prompt: 'Passcode\u009b2J: ', echo: true }],
    });
    stdin.write('123456\n');
    expect(await answer).toEqual(['123456']);
    const shown = read(stderr);
    expect(shown).toContain('Duo\\033]0;x\\007\n');
    expect(shown).toContain('Read\\033[1A\\033[2K carefully\n');
    expect(shown).toContain('Passcode\\302\\2332J: ');
    for (const c of ['\x1b', '\x07', '\u009b']) expect(shown).not.toContain(c);
  });
});

describe('the app shows keyboard-interactive text escaped too', () => {
  it('PromptBroker sends the window escaped name, instructions and prompts', () => {
    const sent: PromptRequest[] = [];
    const broker = new PromptBroker((r) => sent.push(r), () => {});
    void broker.ask('c1', { kind: 'keyboardInteractive', name: 'n\x1b', instructions: 'i\u202e', prompts: [{ prompt: 'p\x07', echo: false }] });
    expect(sent[0]).toMatchObject({ name: 'n\\033', instructions: 'i\\342\\200\\256', prompts: [{ prompt: 'p\\007', echo: false }] });
    broker.cancelFor('c1');
  });
});
