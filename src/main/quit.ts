/**
 * Quitting closes every tunnel and connection before the process ends: remote sshd sessions and
 * forwarded ports are released at once rather than after a TCP timeout, and local listeners do
 * not outlive the app. Bounded, because a dead network must not make "Quit" hang.
 */
export interface ShutdownStep {
  name: string;
  run(): Promise<void>;
}

export type ShutdownResult = { clean: boolean; failed: string[]; timedOut: boolean };

export function createShutdown(steps: ShutdownStep[], o: { timeoutMs: number; log(line: string): void }): () => Promise<ShutdownResult> {
  let running: Promise<ShutdownResult> | null = null;
  return () => {
    running ??= (async () => {
      const failed: string[] = [];
      let timer: NodeJS.Timeout | undefined;
      const work = (async () => {
        for (const s of steps) {
          try {
            await s.run();
          } catch (e) {
            failed.push(s.name);
            o.log(`shutdown: ${s.name} failed: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
        return false;
      })();
      const timeout = new Promise<boolean>((r) => {
        timer = setTimeout(() => r(true), o.timeoutMs);
      });
      const timedOut = await Promise.race([work, timeout]);
      clearTimeout(timer);
      if (timedOut) o.log(`shutdown: gave up waiting after ${o.timeoutMs} ms`);
      return { clean: !timedOut && failed.length === 0, failed, timedOut };
    })();
    return running;
  };
}
