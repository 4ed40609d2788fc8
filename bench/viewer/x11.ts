import fs from 'node:fs';

export async function waitForX(display: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(`/tmp/.X11-unix/X${display}`)) {
    if (Date.now() > deadline) throw new Error(`X display :${display} did not come up`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
