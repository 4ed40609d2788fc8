import type { Route } from './navigation';
import { SPAN_PART } from '../../shared/spanDisplays';

/**
 * A viewer's own address, so a second window or browser tab opens straight onto that desktop: the
 * connection lives in the app's core, which every window of it shares, and each viewer takes its own
 * ticket and channel (viewer.open), so several desktops show at once.
 */
const PREFIX = '#viewer/';
// The contract's id rule (src/shared/contract.ts): the router refuses anything else anyway.
const ID = /^[A-Za-z0-9_.:-]{1,64}$/;

export function viewerHash(r: { connectionId: string; profileId: string; display: number; span?: boolean }): string {
  return `${PREFIX}${encodeURIComponent(r.connectionId)}/${encodeURIComponent(r.profileId)}/${r.display}${r.span ? `/${SPAN_PART}` : ''}`;
}

/** The viewer route a window's address names; null for anything else (the app starts at its server list). */
export function routeFromHash(hash: string): Extract<Route, { screen: 'viewer' }> | null {
  if (!hash.startsWith(PREFIX)) return null;
  const parts = hash.slice(PREFIX.length).split('/');
  // A fourth part asks for a window spanning every monitor (main/index.ts gives it one).
  const span = parts.length === 4 && parts[3] === SPAN_PART;
  if (span) parts.pop();
  if (parts.length !== 3) return null;
  let connectionId: string, profileId: string;
  try {
    connectionId = decodeURIComponent(parts[0]);
    profileId = decodeURIComponent(parts[1]);
  } catch {
    return null;
  }
  if (!ID.test(connectionId) || !ID.test(profileId) || !/^\d{1,5}$/.test(parts[2])) return null;
  const display = Number(parts[2]);
  return display <= 65535 - 5900 ? { screen: 'viewer', connectionId, profileId, display, ...(span ? { span: true } : {}) } : null;
}
