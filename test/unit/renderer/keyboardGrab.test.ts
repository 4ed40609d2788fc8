import { describe, expect, it } from 'vitest';
import { fullScreenChanged, initialGrab, isDeskKey, isGrabbed, isGrabShortcut, onShortcut, routeKey, toggleGrab } from '../../../src/renderer/viewer/keyboardGrab';
import { movedBy } from '../../../src/renderer/viewer/pointerMotion';

const key = (code: string, mods: { ctrl?: boolean; alt?: boolean; shift?: boolean; meta?: boolean } = {}, type = 'keydown', k?: string) => ({
  type, code, key: k, ctrlKey: !!mods.ctrl, altKey: !!mods.alt, shiftKey: !!mods.shift, metaKey: !!mods.meta,
});

describe('keyboard grab state (viewer/keyboardGrab.ts)', () => {
  it('released in a window; grabbed on entering full screen when the setting says so, not when it does not', () => {
    expect(isGrabbed(initialGrab, true)).toBe(false);
    const fs = fullScreenChanged(initialGrab, true);
    expect(isGrabbed(fs, true)).toBe(true);
    expect(isGrabbed(fs, false)).toBe(false);
  });

  it('the toggle overrides the default until full screen changes, which brings the default back', () => {
    const fs = fullScreenChanged(initialGrab, true);
    const released = toggleGrab(fs, true);
    expect(isGrabbed(released, true)).toBe(false);
    expect(isGrabbed(toggleGrab(released, true), true)).toBe(true);
    // Same full-screen state reported again: the choice stands.
    expect(fullScreenChanged(released, true)).toBe(released);
    const windowed = fullScreenChanged(released, false);
    expect(isGrabbed(windowed, true)).toBe(false);
    expect(isGrabbed(fullScreenChanged(windowed, true), true)).toBe(true);
    // In a window the toggle grabs.
    expect(isGrabbed(toggleGrab(initialGrab, true), true)).toBe(true);
  });

  it('the shortcut toggles; with the pointer locked it releases keyboard and pointer together', () => {
    expect(onShortcut(initialGrab, true, false)).toEqual({ state: { fullScreen: false, toggled: true }, releasePointer: false });
    const grabbed = toggleGrab(initialGrab, true);
    expect(onShortcut(grabbed, true, true)).toEqual({ state: { fullScreen: false, toggled: false }, releasePointer: true });
    expect(onShortcut(initialGrab, true, true).state.toggled).toBe(false);
  });
});

describe('which keys are the desk\'s (viewer/keyboardGrab.ts)', () => {
  it('Ctrl+Alt+Shift+G is the shortcut; G with fewer modifiers or with Super is not', () => {
    expect(isGrabShortcut(key('KeyG', { ctrl: true, alt: true, shift: true }))).toBe(true);
    expect(isGrabShortcut(key('KeyG', { ctrl: true, alt: true }))).toBe(false);
    expect(isGrabShortcut(key('KeyG', { ctrl: true, alt: true, shift: true, meta: true }))).toBe(false);
    expect(isGrabShortcut(key('KeyL', { ctrl: true, alt: true, shift: true }))).toBe(false);
  });

  it('Super, Alt+Tab, Alt+Shift+Tab, Alt+F4, Ctrl+Esc and Ctrl+Alt+arrows are the desk\'s; Alt alone, Alt+drag keys, Ctrl+C and Ctrl+Alt+Del are not', () => {
    for (const k of [key('MetaLeft', {}, 'keydown', 'Meta'), key('MetaRight', { meta: true }), key('KeyE', { meta: true }), key('Tab', { alt: true }), key('Tab', { alt: true, shift: true }), key('F4', { alt: true }), key('Escape', { ctrl: true }), key('ArrowLeft', { ctrl: true, alt: true }), key('ArrowDown', { ctrl: true, alt: true, shift: true })]) {
      expect(isDeskKey(k), JSON.stringify(k)).toBe(true);
    }
    for (const k of [key('AltLeft', { alt: true }, 'keydown', 'Alt'), key('KeyC', { ctrl: true }), key('Tab'), key('Delete', { ctrl: true, alt: true }), key('ArrowLeft', { alt: true }), key('Escape'), key('F4')]) {
      expect(isDeskKey(k), JSON.stringify(k)).toBe(false);
    }
  });

  it('released, desk keys stay local and their keyups follow; grabbed, they go to the remote desktop', () => {
    const held = new Set<string>();
    expect(routeKey(key('Tab', { alt: true }), false, held)).toBe('desk');
    expect(routeKey(key('Tab', { alt: true }), true, held)).toBe('remote');
    expect(routeKey(key('AltLeft', { alt: true }), false, held)).toBe('remote');
    // A keyup goes where its keydown went, whatever the grab is now.
    held.add('MetaLeft');
    expect(routeKey(key('MetaLeft', {}, 'keyup'), true, held)).toBe('desk');
    expect(routeKey(key('Tab', {}, 'keyup'), false, held)).toBe('remote');
    expect(routeKey(key('KeyG', { ctrl: true, alt: true, shift: true }), true, held)).toBe('toggle');
    expect(routeKey(key('KeyG', { ctrl: true, alt: true, shift: true }, 'keyup'), false, held)).toBe('toggle');
  });
});

describe('pointer lock motion (viewer/pointerMotion.ts)', () => {
  it('moves by the relative motion and stays inside the canvas, as noVNC clamps absolute positions', () => {
    expect(movedBy({ x: 100, y: 100 }, 5, -7, 800, 600)).toEqual({ x: 105, y: 93 });
    expect(movedBy({ x: 10, y: 10 }, -50, -50, 800, 600)).toEqual({ x: 0, y: 0 });
    expect(movedBy({ x: 790, y: 590 }, 50, 50, 800, 600)).toEqual({ x: 799, y: 599 });
    expect(movedBy({ x: 0, y: 0 }, 3, 3, 0, 0)).toEqual({ x: 0, y: 0 });
  });
});
