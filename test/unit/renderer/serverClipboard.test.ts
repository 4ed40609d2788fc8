import { describe, expect, it } from 'vitest';
import { CLIPBOARD_MAX_CHARS, fromServerClipboard } from '../../../src/renderer/viewer/serverClipboard';

describe('the server\'s clipboard on the desk', () => {
  it('is copied automatically unless that is turned off or the viewer only watches', () => {
    expect(fromServerClipboard('hello', { auto: true, viewOnly: false })).toEqual({ show: 'hello', copy: true, tooLarge: false });
    expect(fromServerClipboard('hello', { auto: false, viewOnly: false }).copy).toBe(false);
    expect(fromServerClipboard('hello', { auto: true, viewOnly: true }).copy).toBe(false);
  });

  it('is neither kept nor copied over the cap, whatever the settings', () => {
    expect(fromServerClipboard('x'.repeat(CLIPBOARD_MAX_CHARS + 1), { auto: true, viewOnly: false })).toEqual({ show: null, copy: false, tooLarge: true });
    expect(fromServerClipboard('x'.repeat(CLIPBOARD_MAX_CHARS), { auto: true, viewOnly: false }).copy).toBe(true);
  });
});
