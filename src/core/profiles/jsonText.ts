/**
 * Where a JSON text stops parsing, without any of its content: V8's messages quote the start of
 * the text ("Unexpected token 'r', "root:$y$j9"... is not valid JSON"), and an error must never
 * carry what a file holds.
 */
export function jsonSyntaxWhere(e: unknown, text: string): string {
  const msg = e instanceof Error ? e.message : '';
  if (/end of JSON input/.test(msg)) return 'it ends too early';
  const at = /at position (\d+)/.exec(msg);
  if (!at) return 'not JSON from the start';
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  return `line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}
