import fs from 'node:fs';
import path from 'node:path';
import { buildRenderer } from '../../src/harness/buildRenderer';

/** Build the real renderer once for every spec (the harness serves it without rebuilding). */
export default async function globalSetup(): Promise<void> {
  fs.rmSync(path.resolve(__dirname, '../../test-results/screens'), { recursive: true, force: true });
  await buildRenderer(undefined, { quiet: true });
}
