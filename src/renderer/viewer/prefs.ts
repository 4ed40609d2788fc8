import type { EncodingName, Profile, SavedViewerPrefs, ViewerPrefs } from '../../shared/models';
import { defaultViewerPrefs } from '../../shared/models';
import type { ProfileInput } from '../../shared/contract';

const LOCAL_KEY = (profileId: string) => `gpu-desk.viewer.${profileId}`;
const LOCAL_FIELDS = ['lossless', 'jpegQuality', 'subsampling', 'viewOnly', 'showHud', 'codec', 'videoMinKbps', 'videoMaxKbps', 'autoClipboard', 'grabInFullScreen'] as const;
const PRIMARY: EncodingName[] = ['tight', 'zrle', 'hextile', 'raw', 'h264'];

/** The profile's saved viewer settings plus the per-window ones kept in localStorage. */
export function loadPrefs(profile: Profile | undefined): ViewerPrefs {
  const p: ViewerPrefs = { ...defaultViewerPrefs };
  if (profile) {
    const v = profile.viewer;
    p.quality = v.quality;
    p.compression = v.compression;
    p.encoding = (v.encodings.find((e) => (PRIMARY as string[]).includes(e)) as EncodingName | undefined) ?? 'tight';
    p.scale = v.scaling === 'off' ? 'native' : v.scaling === 'remote-resize' ? 'remote' : 'fit';
    p.adaptive = v.adaptive;
    try {
      const local = JSON.parse(localStorage.getItem(LOCAL_KEY(profile.id)) ?? '{}') as Partial<ViewerPrefs>;
      for (const k of LOCAL_FIELDS) if (k in local) (p as unknown as Record<string, unknown>)[k] = local[k];
      // A value from an older or hand-edited store: the defaults instead.
      if (!['vnc', 'video', 'auto'].includes(p.codec)) p.codec = defaultViewerPrefs.codec;
      if (typeof p.autoClipboard !== 'boolean') p.autoClipboard = defaultViewerPrefs.autoClipboard;
      if (typeof p.grabInFullScreen !== 'boolean') p.grabInFullScreen = defaultViewerPrefs.grabInFullScreen;
      for (const k of ['videoMinKbps', 'videoMaxKbps'] as const) if (!Number.isInteger(p[k]) || p[k] < 250 || p[k] > 200_000) p[k] = defaultViewerPrefs[k];
      if (p.videoMinKbps > p.videoMaxKbps) p.videoMinKbps = p.videoMaxKbps;
    } catch {
      /* a hand-edited value: defaults */
    }
  }
  return p;
}

export function savedPart(p: ViewerPrefs): SavedViewerPrefs {
  return {
    quality: p.quality,
    compression: p.compression,
    encodings: [p.encoding],
    scaling: p.scale === 'native' ? 'off' : p.scale === 'remote' ? 'remote-resize' : 'fit',
    adaptive: p.adaptive,
  };
}

export function storeLocal(profileId: string, p: ViewerPrefs): void {
  const o: Record<string, unknown> = {};
  for (const k of LOCAL_FIELDS) o[k] = p[k];
  localStorage.setItem(LOCAL_KEY(profileId), JSON.stringify(o));
}

export function profileInput(profile: Profile, viewer: SavedViewerPrefs): ProfileInput {
  return {
    id: profile.id,
    name: profile.name,
    host: profile.host,
    port: profile.port,
    ...(profile.user ? { user: profile.user } : {}),
    jumpHosts: profile.jumpHosts,
    auth: profile.auth,
    display: profile.display,
    viewer,
    forwards: profile.forwards,
  };
}

/** The corners the HUD docks to, in the order its "next corner" button walks them. */
export const HUD_CORNERS = ['top-right', 'bottom-right', 'bottom-left', 'top-left'] as const;
export type HudCorner = (typeof HUD_CORNERS)[number];
// One place for every server: where the HUD sits depends on the user's desk and habits, not on which
// desktop is open (a per-profile place would make it jump back over the desktop on the next server).
const HUD_CORNER_KEY = 'gpu-desk.viewer.hudCorner';

/** The corner the HUD was last docked to; top right (where it has always been) at first. */
export function loadHudCorner(): HudCorner {
  try {
    const v = localStorage.getItem(HUD_CORNER_KEY);
    return (HUD_CORNERS as readonly string[]).includes(v ?? '') ? (v as HudCorner) : 'top-right';
  } catch {
    return 'top-right';
  }
}

export function storeHudCorner(c: HudCorner): void {
  try {
    localStorage.setItem(HUD_CORNER_KEY, c);
  } catch {
    /* storage full or denied: the HUD stays where it is for this window only */
  }
}
