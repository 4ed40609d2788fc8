import { describe, expect, it } from 'vitest';
import { isSpanViewerUrl, spanBounds } from '../../../src/shared/spanDisplays';
import { layoutFromMonitors } from '../../../src/renderer/viewer/screenLayout';
import { routeFromHash, viewerHash } from '../../../src/renderer/app/viewerLink';
import { SPAN_SHORTCUT, isShortcut } from '../../../src/renderer/viewer/shortcutKeys';

describe('a viewer spanning every monitor', () => {
  it('its window covers the union of the displays, wherever the primary one is', () => {
    // Electron's displays: the primary at (0,0), a second one left of it and lower, a third above.
    const displays = [
      { x: 0, y: 0, width: 2560, height: 1440 },
      { x: -1920, y: 360, width: 1920, height: 1080 },
      { x: 320, y: -1080, width: 1920, height: 1080 },
    ];
    expect(spanBounds(displays)).toEqual({ x: -1920, y: -1080, width: 4480, height: 2520 });
    expect(spanBounds([displays[0]])).toEqual(displays[0]);
    // A display Electron reports without a size (being unplugged) takes no room; none at all: no span.
    expect(spanBounds([...displays, { x: 9000, y: 0, width: 0, height: 1080 }])).toEqual(spanBounds(displays));
    expect(spanBounds([])).toBeNull();
    expect(spanBounds([{ x: Number.NaN, y: 0, width: 10, height: 10 }])).toBeNull();
  });

  it('each remote screen lies under its monitor in that window: the layout\'s origin is the window\'s corner', () => {
    const displays = [
      { x: 0, y: 0, width: 2560, height: 1440 },
      { x: -1920, y: 360, width: 1920, height: 1080 },
    ];
    const win = spanBounds(displays)!;
    const layout = layoutFromMonitors(displays);
    expect({ width: layout.width, height: layout.height }).toEqual({ width: win.width, height: win.height });
    layout.screens.forEach((s, i) => {
      expect({ x: s.x + win.x, y: s.y + win.y, width: s.width, height: s.height }).toEqual(displays[i]);
    });
  });

  it('its address is a viewer\'s with /span: the route says so, and only that address gets a spanning window', () => {
    const h = viewerHash({ connectionId: 'c:1', profileId: 'p_2', display: 3, span: true });
    expect(h).toBe('#viewer/c%3A1/p_2/3/span');
    expect(routeFromHash(h)).toEqual({ screen: 'viewer', connectionId: 'c:1', profileId: 'p_2', display: 3, span: true });
    expect(routeFromHash('#viewer/c/p/3/other')).toBeNull();
    expect(routeFromHash('#viewer/c/p/3/span/x')).toBeNull();
    expect(isSpanViewerUrl(`app://gpu-desk/index.html${h}`)).toBe(true);
    for (const url of ['app://gpu-desk/index.html#viewer/c/p/3', 'app://gpu-desk/index.html#viewer/c/p/3/spanx', 'app://gpu-desk/span#viewer/c/p/3', 'not a url'])
      expect(isSpanViewerUrl(url), url).toBe(false);
  });

  it('Ctrl+Alt+Shift+F leaves it; the same letter without all three modifiers, or with Super, does not', () => {
    const k = { ctrlKey: true, altKey: true, shiftKey: true, metaKey: false, code: 'KeyF' };
    expect(SPAN_SHORTCUT.label).toBe('Ctrl+Alt+Shift+F');
    expect(isShortcut(SPAN_SHORTCUT, k)).toBe(true);
    for (const other of [{ ...k, altKey: false }, { ...k, shiftKey: false }, { ...k, metaKey: true }, { ...k, code: 'KeyG' }]) expect(isShortcut(SPAN_SHORTCUT, other)).toBe(false);
  });
});
