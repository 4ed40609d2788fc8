import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * bin/gpu-desk.cjs runs the bundle only while it is at least as new as every source it was built from,
 * and the TypeScript through tsx otherwise. Here in a copy of the layout: the real bin file, a bundle
 * and a source that each say which one ran, and set modification times.
 */
const REPO = path.resolve(__dirname, '../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-bin-choice-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
};
const said = (from: string) => `exports.main = async () => { process.stdout.write(${JSON.stringify(from)}); return 0; };\n`;
write('bin/gpu-desk.cjs', fs.readFileSync(path.join(REPO, 'bin/gpu-desk.cjs'), 'utf8'));
write('out/cli/gpu-desk.cjs', said('bundle'));
write('out/cli/inputs.json', JSON.stringify(['src/core/cli/main.ts']));
write('src/core/cli/main.ts', `export async function main(): Promise<number> { process.stdout.write('sources'); return 0; }\n`);
fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));

const at = (rel: string, seconds: number) => fs.utimesSync(path.join(dir, rel), seconds, seconds);
const run = () => execFileSync(process.execPath, [path.join(dir, 'bin/gpu-desk.cjs'), '--help'], { encoding: 'utf8' });

describe('bin/gpu-desk.cjs: the bundle or the sources', () => {
  it('runs the bundle when it is newer than its sources', () => {
    at('src/core/cli/main.ts', 1_000_000);
    at('out/cli/gpu-desk.cjs', 2_000_000);
    expect(run()).toBe('bundle');
  });

  it('runs the sources through tsx when one of them is newer than the bundle', () => {
    at('src/core/cli/main.ts', 3_000_000);
    expect(run()).toBe('sources');
  });

  it('runs the sources when a source the bundle was built from is gone, or there is no bundle', () => {
    at('src/core/cli/main.ts', 1_000_000);
    write('out/cli/inputs.json', JSON.stringify(['src/core/cli/main.ts', 'src/core/cli/gone.ts']));
    expect(run()).toBe('sources');
    write('out/cli/inputs.json', JSON.stringify(['src/core/cli/main.ts']));
    fs.rmSync(path.join(dir, 'out/cli/gpu-desk.cjs'));
    expect(run()).toBe('sources');
  });
});
