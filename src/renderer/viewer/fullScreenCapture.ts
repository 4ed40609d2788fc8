import { useEffect } from 'react';

/**
 * noVNC emulates mouse capture (a drag that leaves the canvas still ends on it) with an overlay it
 * puts in document.body while a button is down, taken away when that overlay sees the button come
 * up. In full screen only the viewer's element is shown, so the release lands on the canvas, whose
 * handler stops it there, and the overlay stays: after leaving full screen it covers the page until
 * one more click. A release in full screen is therefore handed on to the overlay, at the same place,
 * so noVNC lets go as it means to (its canvas sees one more button-up, which changes nothing).
 */
export function useFullScreenCaptureRelease(): void {
  useEffect(() => {
    const onUp = (e: MouseEvent) => {
      if (!document.fullscreenElement) return;
      setTimeout(() => {
        const overlay = document.getElementById('noVNC_mouse_capture_elem');
        if (overlay && overlay.style.display !== 'none') overlay.dispatchEvent(new MouseEvent('mouseup', e));
      }, 0);
    };
    window.addEventListener('mouseup', onUp, true);
    return () => window.removeEventListener('mouseup', onUp, true);
  }, []);
}
