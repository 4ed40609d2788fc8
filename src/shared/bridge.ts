import type { ErrorCode } from './errorCodes';

/**
 * What crosses the IPC boundary. Errors travel as plain values because Electron's contextBridge
 * and structured clone drop everything but `message` from thrown Error objects.
 */
export interface IpcError {
  code: ErrorCode;
  message: string;
  fix?: string;
}
export type IpcResult<T = unknown> = { ok: true; value: T } | { ok: false; error: IpcError };

/**
 * The whole renderer-facing API, as exposed by the preload (window.gpuDesk) and mirrored by the
 * browser harness's WebSocket client. Typed per method by the renderer's client from the contract.
 */
export interface GpuDeskBridge {
  invoke(method: string, input?: unknown): Promise<IpcResult>;
  /** Returns an unsubscribe function. */
  on(event: string, listener: (payload: unknown) => void): () => void;
}

/** The global name the preload uses for the bridge: `window.gpuDesk`. */
export const BRIDGE_GLOBAL = 'gpuDesk';

/** The only two channels between main and renderer; method and event names travel as arguments. */
export const INVOKE_CHANNEL = 'gpu-desk:invoke';
export const EVENT_CHANNEL = 'gpu-desk:event';
