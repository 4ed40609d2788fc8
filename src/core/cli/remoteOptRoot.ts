import { remoteOptRootFrom } from '../remote/probe';
import type { CliIo } from './io';

/** Where VirtualGL/ and TurboVNC/ live on the server: the same setting the app reads (remoteOptRootFrom). */
export function remoteOptRoot(io: CliIo): string {
  return remoteOptRootFrom(io.env);
}
