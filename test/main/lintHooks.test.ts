import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The real eslint.config.js: React's hook rules hold in the renderer, as errors.
const root = path.resolve(__dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function hookProblems(file: string, code: string): Promise<{ rule: string | null; severity: number }[]> {
  const [r] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return r.messages.filter((m) => m.ruleId?.startsWith('react-hooks/')).map((m) => ({ rule: m.ruleId, severity: m.severity }));
}

describe('react-hooks rules (eslint.config.js)', () => {
  it('an effect that reads a value it does not list is an error', async () => {
    const code = [
      "import { useEffect, useState } from 'react';",
      'export function Screen({ id, onOpen }: { id: string; onOpen(id: string): void }) {',
      '  const [n, setN] = useState(0);',
      '  useEffect(() => { onOpen(id); setN(1); }, [id]);',
      '  return n;',
      '}',
    ].join('\n');
    expect(await hookProblems('src/renderer/app/x.tsx', code)).toEqual([{ rule: 'react-hooks/exhaustive-deps', severity: 2 }]);
  });

  it('a hook called conditionally is an error', async () => {
    const code = [
      "import { useState } from 'react';",
      'export function Screen({ on }: { on: boolean }) {',
      '  if (on) { const [n] = useState(0); return n; }',
      '  return 0;',
      '}',
    ].join('\n');
    expect(await hookProblems('src/renderer/app/x.tsx', code)).toEqual([{ rule: 'react-hooks/rules-of-hooks', severity: 2 }]);
  });

  it('the renderer today has no hook problem', async () => {
    const results = await eslint.lintFiles(['src/renderer']);
    const hits = results.flatMap((r) => r.messages.filter((m) => m.ruleId?.startsWith('react-hooks/')).map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.message}`));
    expect(hits).toEqual([]);
  });
});
