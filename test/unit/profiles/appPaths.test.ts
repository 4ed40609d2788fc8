import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appPaths, defaultDataDir } from '../../../src/core/profiles/appPaths';

describe('appPaths', () => {
  it('uses each platform\'s application data directory', () => {
    expect(defaultDataDir({ platform: 'linux', env: {}, home: '/home/a' })).toBe('/home/a/.config/gpu-desk');
    expect(defaultDataDir({ platform: 'linux', env: { XDG_CONFIG_HOME: '/x/cfg' }, home: '/home/a' })).toBe('/x/cfg/gpu-desk');
    // A relative XDG_CONFIG_HOME is invalid per the XDG spec and must be ignored.
    expect(defaultDataDir({ platform: 'linux', env: { XDG_CONFIG_HOME: 'rel' }, home: '/home/a' })).toBe('/home/a/.config/gpu-desk');
    expect(defaultDataDir({ platform: 'darwin', env: {}, home: '/Users/a' })).toBe('/Users/a/Library/Application Support/gpu-desk');
    expect(defaultDataDir({ platform: 'win32', env: { APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, home: 'C:\\Users\\a' })).toBe('C:\\Users\\a\\AppData\\Roaming\\gpu-desk');
  });

  it('GPU_DESK_HOME moves profiles, known_hosts and sealed keys together', () => {
    const p = appPaths({ env: { GPU_DESK_HOME: '/tmp/gd-home' }, platform: 'linux', home: '/home/a' });
    expect(p).toEqual({
      dataDir: '/tmp/gd-home',
      profilesFile: '/tmp/gd-home/profiles.json',
      knownHostsFile: '/tmp/gd-home/known_hosts',
      keysDir: '/tmp/gd-home/keys',
    });
    expect(appPaths({ env: {}, platform: 'linux', home: '/home/a' }).knownHostsFile).toBe(path.join('/home/a/.config/gpu-desk', 'known_hosts'));
  });
});
