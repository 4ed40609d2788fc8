/**
 * Text a server chooses (keyboard-interactive names and prompts, banners, disconnect reasons,
 * command output, probe findings) must not drive the user's terminal: an ESC or CSI could retitle
 * the window, rewrite earlier lines ("the fingerprint is OK"), or on some terminals answer back
 * into the input. OpenSSH passes such text through strnvis(3) (VIS_SAFE | VIS_OCTAL); this does
 * the same for JavaScript strings.
 *
 * Unsafe: C0 controls except tab and newline, DEL, C1 controls (U+0080–U+009F: U+009B is CSI on
 * terminals that honour 8-bit controls) and the bidirectional overrides and isolates, which can
 * make a prompt read differently from what it is. Each becomes `\ooo` per UTF-8 byte, as
 * VIS_OCTAL writes it. Backslashes stay as they are (VIS_NOSLASH, as OpenSSH prints prompts).
 */
// eslint-disable-next-line no-control-regex
export const UNSAFE_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function octal(ch: string): string {
  return [...Buffer.from(ch, 'utf8')].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
}

/**
 * `multiline` (default) keeps newlines (a CRLF counts as one); otherwise a newline is escaped too,
 * for text that must stay on one line (a prompt, a name).
 */
export function escapeServerText(text: string, opts: { multiline?: boolean } = {}): string {
  const multiline = opts.multiline ?? true;
  const t = multiline ? text.replace(/\r\n/g, '\n') : text;
  const escaped = t.replace(UNSAFE_TEXT, octal);
  return multiline ? escaped : escaped.replace(/\n/g, '\\012');
}
