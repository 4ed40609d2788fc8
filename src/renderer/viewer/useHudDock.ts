import { useCallback, useRef, useState, type CSSProperties, type PointerEvent } from 'react';
import { HUD_CORNERS, loadHudCorner, storeHudCorner, type HudCorner } from './prefs';

interface Grab {
  /** Where in the HUD the pointer took hold of it. */
  dx: number;
  dy: number;
}

/**
 * Where the HUD sits over the desktop: docked to a corner, remembered for the next session. Dragged by
 * its title bar it follows the pointer inside the viewer and, let go, docks to the nearest corner: a
 * corner stays right when the window or the desktop changes size, where a free position would not.
 */
export function useHudDock() {
  const [corner, setCorner] = useState<HudCorner>(loadHudCorner);
  const [dragAt, setDragAt] = useState<{ left: number; top: number } | null>(null);
  const hudRef = useRef<HTMLElement>(null);
  const grab = useRef<Grab | null>(null);

  const dock = useCallback((c: HudCorner) => {
    setCorner(c);
    storeHudCorner(c);
  }, []);

  /** The HUD's top-left corner inside the viewer for this pointer position, kept inside the viewer. */
  const placeFor = (e: PointerEvent<HTMLElement>, g: Grab) => {
    const hud = hudRef.current;
    const area = hud?.offsetParent?.getBoundingClientRect();
    if (!hud || !area) return null;
    const clamp = (v: number, max: number) => Math.min(Math.max(0, v), Math.max(0, max));
    return {
      left: clamp(e.clientX - g.dx - area.left, area.width - hud.offsetWidth),
      top: clamp(e.clientY - g.dy - area.top, area.height - hud.offsetHeight),
    };
  };

  const handle = {
    onPointerDown(e: PointerEvent<HTMLElement>) {
      const hud = hudRef.current;
      if (e.button !== 0 || !hud) return;
      const r = hud.getBoundingClientRect();
      grab.current = { dx: e.clientX - r.left, dy: e.clientY - r.top };
      e.currentTarget.setPointerCapture(e.pointerId);
      // No text selection, and the desktop keeps the keyboard.
      e.preventDefault();
      setDragAt(placeFor(e, grab.current));
    },
    onPointerMove(e: PointerEvent<HTMLElement>) {
      if (grab.current) setDragAt(placeFor(e, grab.current));
    },
    onPointerUp(e: PointerEvent<HTMLElement>) {
      const g = grab.current;
      grab.current = null;
      const at = g && placeFor(e, g);
      const hud = hudRef.current;
      const area = hud?.offsetParent?.getBoundingClientRect();
      setDragAt(null);
      if (!at || !hud || !area) return;
      const right = at.left + hud.offsetWidth / 2 > area.width / 2;
      const bottom = at.top + hud.offsetHeight / 2 > area.height / 2;
      dock(`${bottom ? 'bottom' : 'top'}-${right ? 'right' : 'left'}`);
    },
    onPointerCancel() {
      grab.current = null;
      setDragAt(null);
    },
  };

  const nextCorner = useCallback(() => dock(HUD_CORNERS[(HUD_CORNERS.indexOf(corner) + 1) % HUD_CORNERS.length]), [corner, dock]);

  const style: CSSProperties | undefined = dragAt ? { left: dragAt.left, top: dragAt.top, right: 'auto', bottom: 'auto' } : undefined;
  return { hudRef, corner, dragging: dragAt !== null, style, handle, nextCorner };
}
