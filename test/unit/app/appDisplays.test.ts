import { describe, expect, it } from 'vitest';
import { appHandlers } from '../../../src/core/app/services/settings';

describe('app.displays (the viewer\'s "Screens: match my monitors")', () => {
  it('gives the shell\'s monitors as it knows them', async () => {
    const desk = [{ x: 0, y: 0, width: 2560, height: 1440, scaleFactor: 1.5 }, { x: 2560, y: 0, width: 1920, height: 1080, scaleFactor: 1 }];
    const h = appHandlers({ shell: 'electron', version: '0', displays: () => desk });
    expect(await h['app.displays']({})).toEqual(desk);
  });

  it('null in a shell that cannot tell (the harness: the browser\'s Window Management API instead)', async () => {
    expect(await appHandlers({ shell: 'harness', version: '0' })['app.displays']({})).toBeNull();
  });
});
