/**
 * A child process that drives the real ProfileStore, for the crash and concurrency tests.
 *   loop  FILE                   : bump a counter in every profile, forever (killed with SIGKILL)
 *   add   FILE PREFIX N [WAITMS] : add N profiles named PREFIX-0 … PREFIX-(N-1)
 *   hold  FILE                   : take the store's lock and keep it until killed
 * It prints "ready" once the store is loaded so the parent can time its kill.
 */
import { ProfileStore } from '../../../src/core/profiles/profileStore';

async function run(): Promise<void> {
  const [mode, file, prefix, n, waitMs] = process.argv.slice(2);
  const notices: string[] = [];
  const store = new ProfileStore({ file, lock: { timeoutMs: Number(waitMs ?? 60_000) }, notice: (l) => notices.push(l) });
  if (mode === 'loop') {
    await store.read();
    process.stdout.write('ready\n');
    for (;;) {
      await store.update((doc) => {
        for (const p of doc.profiles) p.port = (p.port % 60000) + 1;
      });
      process.stdout.write('wrote\n');
    }
  }
  if (mode === 'hold') {
    await store.update(() => {
      process.stdout.write('ready\nholding\n');
      // A pending promise alone would let node exit; the timer keeps the holder alive until killed.
      return new Promise<never>(() => setInterval(() => {}, 1 << 30));
    });
  }
  if (mode === 'add') {
    process.stdout.write('ready\n');
    for (let i = 0; i < Number(n); i++) {
      await store.add({ name: `${prefix}-${i}`, host: `${prefix}-${i}.example`, user: 'u' });
    }
    if (notices.length) process.stdout.write(`notices: ${notices.join(' | ')}\n`);
    return;
  }
  throw new Error(`unknown mode ${mode}`);
}

run().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${e?.code ?? ''} ${e?.message ?? e}\n`);
    process.exit(1);
  },
);
