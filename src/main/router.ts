import { createDispatcher, type Dispatch } from '../core/ipc/dispatch';
import { methods, type Handlers } from '../shared/contract';
import type { FrameInfo } from './security';

/** method → input schema, straight from the contract (the router never lists methods itself). */
export function contractInputs(): Record<string, (typeof methods)[keyof typeof methods]['input']> {
  return Object.fromEntries(Object.entries(methods).map(([name, def]) => [name, def.input]));
}

/**
 * The main process's router: the contract's schemas in front of the core's handlers, answering
 * only frames that isTrusted accepts. Electron-free (FrameInfo is built from the IPC event by
 * index.ts), so test/main/router.test.ts drives it with the real core behind it.
 */
export function createMainRouter(o: { handlers: Handlers; isTrusted(frame: FrameInfo | null): boolean; log(line: string): void }): Dispatch<FrameInfo | null> {
  return createDispatcher<FrameInfo | null>({
    inputs: contractInputs(),
    handlers: o.handlers as unknown as Record<string, (input: unknown) => unknown>,
    isTrustedSender: o.isTrusted,
    log: o.log,
  });
}
