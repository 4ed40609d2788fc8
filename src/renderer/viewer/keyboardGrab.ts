/**
 * Keyboard grab: whether the keys the local desk's system takes (Super, Alt+Tab, Ctrl+Alt+arrows…)
 * go to the remote desktop. Pure state and key tests here; useKeyboardGrab.ts wires them to the page.
 */

import { isShortcut, viewerShortcut, type ShortcutKeys } from './shortcutKeys';

export const GRAB_SHORTCUT = viewerShortcut('G');

type Keys = ShortcutKeys & { key?: string };

export function isGrabShortcut(e: Keys): boolean {
  return isShortcut(GRAB_SHORTCUT, e);
}

const ARROWS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown']);
const META = new Set(['MetaLeft', 'MetaRight', 'OSLeft', 'OSRight']);

/**
 * Keys a desktop's window manager takes for itself: Super (alone or with anything), Alt+Tab,
 * Alt+Esc, Alt+F4, Alt+Space, Ctrl+Esc and Ctrl+Alt+arrows (switching workspaces). Without a grab they
 * stay with the local desk; with one they go to the remote desktop. Alt alone is not one of them:
 * Alt-drag orbits the view in Blender, ParaView, RViz and Isaac Sim, and always goes through.
 */
export function isDeskKey(e: Keys): boolean {
  if (META.has(e.code) || e.key === 'Meta' || e.key === 'OS' || e.metaKey) return true;
  if (e.altKey && !e.ctrlKey && (e.code === 'Tab' || e.code === 'Escape' || e.code === 'F4' || e.code === 'Space')) return true;
  if (e.ctrlKey && !e.altKey && e.code === 'Escape') return true;
  return e.ctrlKey && e.altKey && ARROWS.has(e.code);
}

/**
 * `toggled`: what the person chose with the toggle or the shortcut, or null for the default (grabbed
 * in full screen when the setting says so, released in a window). Entering or leaving full screen
 * drops the choice, as TurboVNC Viewer and Moonlight do: full screen grabs again.
 */
export interface GrabState { fullScreen: boolean; toggled: boolean | null }

export const initialGrab: GrabState = { fullScreen: false, toggled: null };

export function isGrabbed(s: GrabState, grabInFullScreen: boolean): boolean {
  return s.toggled ?? (s.fullScreen && grabInFullScreen);
}

export function toggleGrab(s: GrabState, grabInFullScreen: boolean): GrabState {
  return { ...s, toggled: !isGrabbed(s, grabInFullScreen) };
}

export function fullScreenChanged(s: GrabState, fullScreen: boolean): GrabState {
  return s.fullScreen === fullScreen ? s : { fullScreen, toggled: null };
}

/**
 * What becomes of one key event: 'toggle' (the shortcut, swallowed), 'desk' (left to the local
 * system: not forwarded, the browser's default happens), or 'remote' (noVNC forwards it). A keyup
 * goes where its keydown went (`heldForDesk`: codes whose keydown stayed with the desk), so a grab
 * that changes while a key is held leaves no key stuck down on either side.
 */
export function routeKey(e: Keys & { type: string }, grabbed: boolean, heldForDesk: ReadonlySet<string>): 'toggle' | 'desk' | 'remote' {
  if (isGrabShortcut(e)) return 'toggle';
  if (e.type === 'keyup') return heldForDesk.has(e.code) ? 'desk' : 'remote';
  return !grabbed && isDeskKey(e) ? 'desk' : 'remote';
}

/**
 * The shortcut: toggles the grab; with the pointer locked it releases both (as TurboVNC Viewer's
 * Ctrl-Alt-Shift-G lets go of keyboard and pointer together), so one press always gives the desk back.
 */
export function onShortcut(s: GrabState, grabInFullScreen: boolean, pointerLocked: boolean): { state: GrabState; releasePointer: boolean } {
  if (pointerLocked) return { state: { ...s, toggled: false }, releasePointer: true };
  return { state: toggleGrab(s, grabInFullScreen), releasePointer: false };
}
