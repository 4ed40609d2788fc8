import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { movedBy, type Point } from './pointerMotion';

export type { Point } from './pointerMotion';

/**
 * Pointer lock: a relative pointer for programs that warp it (games, fly-through views in Isaac Sim,
 * Unreal, Blender's walk mode). While the canvas holds the lock, the browser reports motion only as
 * movementX/Y and leaves clientX/Y where the lock began; the page keeps its own position (in the
 * canvas's CSS pixels, clamped to it) and hands noVNC each mouse event again at that position, so
 * noVNC's own path (buttons, wheel, scaling, view-only) sends them as RFB pointer events.
 */


const MOUSE = ['mousemove', 'mousedown', 'mouseup', 'wheel'] as const;

/**
 * Requests the lock on `canvas` (from a click: browsers require a user gesture) and, while it is
 * held, replays mouse events at the virtual position. `onChange` hears when the lock comes and
 * goes (Esc, the shortcut, focus lost). Returns the release.
 */
export function lockPointer(canvas: HTMLCanvasElement, from: Point | null, onChange: (locked: boolean) => void): () => void {
  const rect = () => canvas.getBoundingClientRect();
  // From where the remote pointer last was (noVNC's last position), else the middle.
  let pos: Point = from ? movedBy(from, 0, 0, rect().width, rect().height) : { x: rect().width / 2, y: rect().height / 2 };
  const replayed = new WeakSet<Event>();
  const onMouse = (e: Event) => {
    if (replayed.has(e) || document.pointerLockElement !== canvas) return;
    const m = e as MouseEvent;
    e.stopImmediatePropagation();
    e.preventDefault();
    const r = rect();
    if (e.type === 'mousemove') pos = movedBy(pos, m.movementX, m.movementY, r.width, r.height);
    const init: MouseEventInit = {
      bubbles: true, cancelable: true, clientX: r.left + pos.x, clientY: r.top + pos.y, screenX: m.screenX, screenY: m.screenY,
      button: m.button, buttons: m.buttons, ctrlKey: m.ctrlKey, altKey: m.altKey, shiftKey: m.shiftKey, metaKey: m.metaKey,
    };
    const w = e as WheelEvent;
    const again = e.type === 'wheel' ? new WheelEvent('wheel', { ...init, deltaX: w.deltaX, deltaY: w.deltaY, deltaMode: w.deltaMode }) : new MouseEvent(e.type, init);
    replayed.add(again);
    canvas.dispatchEvent(again);
  };
  const onLockChange = () => onChange(document.pointerLockElement === canvas);
  // Capture phase on the window: before noVNC's own listeners on the canvas.
  for (const t of MOUSE) window.addEventListener(t, onMouse, { capture: true, passive: false });
  document.addEventListener('pointerlockchange', onLockChange);
  void Promise.resolve(canvas.requestPointerLock()).catch(() => onChange(false));
  return () => {
    for (const t of MOUSE) window.removeEventListener(t, onMouse, { capture: true });
    document.removeEventListener('pointerlockchange', onLockChange);
    if (document.pointerLockElement === canvas) document.exitPointerLock();
  };
}

/**
 * The toolbar's pointer lock on the viewer's canvas (inside `host`); `from` gives where the remote
 * pointer is now. The lock ends by Esc (the browser's rule), the shortcut, or leaving the viewer.
 */
export function usePointerLock(host: RefObject<HTMLElement | null>, from: () => Point | null): { locked: boolean; toggle(): void; release(): void } {
  const [locked, setLocked] = useState(false);
  const stop = useRef<(() => void) | null>(null);
  const release = useCallback(() => {
    stop.current?.();
    stop.current = null;
    setLocked(false);
  }, []);
  const toggle = useCallback(() => {
    if (stop.current) { release(); return; }
    const canvas = host.current?.querySelector('canvas');
    if (!canvas) return;
    stop.current = lockPointer(canvas, from(), (on) => { if (on) setLocked(true); else release(); });
  }, [host, from, release]);
  useEffect(() => release, [release]);
  return { locked, toggle, release };
}
