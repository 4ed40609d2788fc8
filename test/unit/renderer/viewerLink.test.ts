import { describe, expect, it } from 'vitest';
import { routeFromHash, viewerHash } from '../../../src/renderer/app/viewerLink';

describe('a viewer\'s own address (a second window onto one desktop)', () => {
  it('round-trips the connection, profile and display', () => {
    const h = viewerHash({ connectionId: 'c:1', profileId: 'p_2', display: 3 });
    expect(h).toBe('#viewer/c%3A1/p_2/3');
    expect(routeFromHash(h)).toEqual({ screen: 'viewer', connectionId: 'c:1', profileId: 'p_2', display: 3 });
  });

  it('anything else starts the app at its server list', () => {
    for (const h of ['', '#', '#viewer/a/b', '#viewer/a/b/c', '#viewer/a b/p/1', '#viewer/%E0/p/1', '#viewer/a/p/99999', '#servers/a/p/1']) {
      expect(routeFromHash(h), h).toBeNull();
    }
  });
});
