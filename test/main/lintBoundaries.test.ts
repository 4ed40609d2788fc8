import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The real eslint.config.js, applied to snippets placed (virtually) in each area of the tree.
const root = path.resolve(__dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function restricted(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return r.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

describe('import boundaries (eslint.config.js)', () => {
  it('src/core and src/shared never import electron, in any form', async () => {
    for (const file of ['src/core/tunnels/x.ts', 'src/shared/x.ts']) {
      expect(await restricted(file, "import { app } from 'electron';\nexport const a = app;\n"), file).toHaveLength(1);
      expect(await restricted(file, "import type { App } from 'electron';\nexport type A = App;\n"), file).toHaveLength(1);
      expect(await restricted(file, "export const e = require('electron');\n"), file).toHaveLength(1);
      expect(await restricted(file, "export const e = import('electron/main');\n"), file).toHaveLength(1);
    }
    expect(await restricted('src/core/x.ts', "import fs from 'node:fs';\nexport const f = fs;\n")).toEqual([]);
  });

  it('src/renderer, src/shared and src/preload never import Node built-ins', async () => {
    for (const file of ['src/renderer/app/x.tsx', 'src/shared/x.ts', 'src/preload/x.ts']) {
      expect(await restricted(file, "import fs from 'node:fs';\nexport const f = fs;\n"), file).toHaveLength(1);
      expect(await restricted(file, "import { spawn } from 'child_process';\nexport const s = spawn;\n"), file).toHaveLength(1);
    }
    expect(await restricted('src/renderer/x.ts', "import { z } from 'zod';\nexport const s = z;\n")).toEqual([]);
  });

  it('src/main may use both', async () => {
    expect(await restricted('src/main/x.ts', "import { app } from 'electron';\nimport fs from 'node:fs';\nexport const a = [app, fs];\n")).toEqual([]);
  });

  it('the files in the tree today respect the boundaries', async () => {
    const results = await eslint.lintFiles(['src/core', 'src/shared', 'src/renderer', 'src/preload']);
    const hits = results.flatMap((r) => r.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
      .map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.message}`));
    expect(hits).toEqual([]);
  });
});
