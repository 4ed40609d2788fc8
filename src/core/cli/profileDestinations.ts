import { savedProfileConnectOptions } from '../profiles/connectOptions';
import { NAME_RE, type Profile } from '../profiles/schema';
import { appStores } from './appStores';
import { writeLine } from './io';
import type { DestinationResolver } from './sshOptions';

/**
 * <destination> given as a profile name: its host, port, user, jump hosts and authentication.
 * Anything else (user@host, an ssh config alias with no profile of that name) passes through.
 * main.ts installs it (setDestinationResolver); tests and embedders choose their own.
 */
export const profileDestinations: DestinationResolver = async (destination, io) => {
  if (!NAME_RE.test(destination)) return null;
  const { profiles, secrets, keys } = appStores(io);
  let p: Profile | undefined;
  try {
    p = await profiles.find(destination);
  } catch (e) {
    // A broken profiles file must not stop "gpu-desk tunnel host": say why the name was not looked up.
    writeLine(io.stderr, `gpu-desk: profiles not consulted: ${(e as Error).message}`);
    return null;
  }
  if (!p) return null;
  return {
    ...(await savedProfileConnectOptions(p, { keys, secrets })),
    defaults: {
      display: p.display.number,
      forwards: p.forwards.map((f) => ({ localPort: f.localPort, remoteHost: f.remoteHost, remotePort: f.remotePort })),
      ...(p.display.geometry ? { geometry: p.display.geometry } : {}),
      ...(p.kind === 'cluster' ? { job: p.job ?? {} } : {}),
    },
  };
};
