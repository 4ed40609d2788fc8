import { describe, expect, it } from 'vitest';
import { boundingGeometry, formatGeometry, geometryScreens } from '../../../src/shared/screenGeometry';
import { methods } from '../../../src/shared/contract';

describe('a desktop\'s start geometry: one size, or TurboVNC\'s one WxH+X+Y per screen', () => {
  it('reads both forms, and TigerVNC gets the bounding box', () => {
    expect(geometryScreens('1920x1080')).toEqual([{ x: 0, y: 0, width: 1920, height: 1080 }]);
    expect(geometryScreens('1920x1080+0+0,1280x1024+1920+56')).toEqual([{ x: 0, y: 0, width: 1920, height: 1080 }, { x: 1920, y: 56, width: 1280, height: 1024 }]);
    expect(boundingGeometry('1920x1080+0+0,1280x1024+1920+56')).toBe('3200x1080');
    expect(boundingGeometry('1920x1080')).toBe('1920x1080');
  });

  it('formats the desk\'s layout back (one screen at the origin as plain WxH)', () => {
    expect(formatGeometry([{ x: 0, y: 0, width: 800, height: 600 }])).toBe('800x600');
    const two = [{ x: 0, y: 0, width: 1920, height: 1080 }, { x: 1920, y: 0, width: 1920, height: 1080 }];
    expect(formatGeometry(two)).toBe('1920x1080+0+0,1920x1080+1920+0');
    expect(geometryScreens(formatGeometry(two))).toEqual(two);
  });

  it('refuses anything else, at the contract too, naming both forms', () => {
    for (const bad of ['1920', '1920x1080+0', '1920x1080,800x600', '1920x1080+0+0;reboot', '1x1', `${Array(17).fill('10x10+0+0').join(',')}`]) {
      expect(geometryScreens(bad), bad).toBeNull();
    }
    const r = methods['sessions.start'].input.safeParse({ connectionId: 'c1', geometry: '1920x1080+0+0;id' });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toMatch(/WxH\+X\+Y per screen/);
    expect(methods['sessions.start'].input.safeParse({ connectionId: 'c1', geometry: '640x480+0+0,640x480+640+0' }).success).toBe(true);
  });
});
