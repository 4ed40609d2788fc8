import { useCallback, useEffect, useRef, useState } from 'react';
import { fullScreenChanged, initialGrab, isGrabbed, onShortcut, routeKey, toggleGrab, type GrabState } from './keyboardGrab';

/** The Keyboard Lock API (Chromium, Electron): not in TypeScript's DOM library yet. */
interface KeyboardLock { lock(codes?: string[]): Promise<void>; unlock(): void }

/** What the page shows of the Keyboard Lock API (data-keyboard-lock): the e2e reads it. */
export type LockState = 'off' | 'locked' | 'unsupported' | 'refused';

/**
 * Keyboard grab in the page: the shortcut toggles it; released, the desk's keys (keyboardGrab.ts)
 * are kept from noVNC and left to the local system; grabbed, noVNC forwards them, and the Keyboard
 * Lock API asks Chromium for the keys the OS would take (it honours that in full screen only, so
 * in a window the grab forwards what the page receives). Capture phase on the window: before noVNC's
 * own handler on its canvas.
 */
export function useKeyboardGrab(grabInFullScreen: boolean, pointer: { locked: boolean; release(): void }): { grabbed: boolean; lock: LockState; toggle(): void } {
  const [state, setState] = useState<GrabState>(initialGrab);
  const [lock, setLock] = useState<LockState>('off');
  const grabbed = isGrabbed(state, grabInFullScreen);
  const grabbedRef = useRef(grabbed);
  grabbedRef.current = grabbed;
  const autoRef = useRef(grabInFullScreen);
  autoRef.current = grabInFullScreen;
  const pointerRef = useRef(pointer);
  pointerRef.current = pointer;
  const toggle = useCallback(() => setState((s) => toggleGrab(s, autoRef.current)), []);
  const shortcut = useCallback(() => {
    const p = pointerRef.current;
    setState((s) => onShortcut(s, autoRef.current, p.locked).state);
    if (p.locked) p.release();
  }, []);

  useEffect(() => {
    const onChange = () => setState((s) => fullScreenChanged(s, document.fullscreenElement !== null));
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);

  useEffect(() => {
    const held = new Set<string>();
    const onKey = (e: KeyboardEvent) => {
      const to = routeKey(e, grabbedRef.current, held);
      if (to === 'remote') return;
      e.stopImmediatePropagation();
      if (to === 'toggle') {
        e.preventDefault();
        if (e.type === 'keydown' && !e.repeat) shortcut();
      } else if (e.type === 'keydown') held.add(e.code);
      else held.delete(e.code);
    };
    window.addEventListener('keydown', onKey, true);
    window.addEventListener('keyup', onKey, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      window.removeEventListener('keyup', onKey, true);
    };
  }, [shortcut]);

  useEffect(() => {
    const kb = (navigator as Navigator & { keyboard?: Partial<KeyboardLock> }).keyboard;
    if (!grabbed) {
      setLock('off');
      return;
    }
    if (typeof kb?.lock !== 'function' || typeof kb.unlock !== 'function') {
      setLock('unsupported');
      return;
    }
    let live = true;
    // Every key: Chromium then delivers Alt+Tab, Super and the like to the page while in full screen.
    kb.lock().then(() => { if (live) setLock('locked'); }, () => { if (live) setLock('refused'); });
    return () => {
      live = false;
      kb.unlock!();
    };
  }, [grabbed]);

  return { grabbed, lock, toggle };
}
