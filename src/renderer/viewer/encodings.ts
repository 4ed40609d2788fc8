import type { EncodingName, Subsampling, ViewerPrefs } from '../../shared/models';

/** RFB encoding numbers (RFC 6143 and the community registry). */
export const ENC = {
  raw: 0,
  copyRect: 1,
  rre: 2,
  hextile: 5,
  zlib: 6,
  tight: 7,
  zrle: 16,
  jpeg: 21,
  h264: 50,
  tightPng: -260,
  qualityLevel0: -32,
  compressLevel0: -256,
  desktopSize: -223,
  lastRect: -224,
  cursor: -239,
  qemuExtendedKey: -258,
  qemuLed: -261,
  desktopName: -307,
  extendedDesktopSize: -308,
  xvp: -309,
  fence: -312,
  continuousUpdates: -313,
  extendedMouseButtons: -316,
  vmwareCursor: 0x574d5664,
  extendedClipboard: 0xc0a1e5ce | 0,
  /**
   * TurboVNC: −512 + q sets JPEG quality q. Its server takes q = 1–100 only (rfbserver.c checks from
   * FineQualityLevel0 + 1): −512 itself is ignored.
   */
  fineQuality0: -512,
  /**
   * TurboVNC: −768 + s sets subsampling (0 = 1X, 1 = 4X, 2 = 2X, 3 = gray). rfbproto.h also names
   * 8X (−764) and 16X (−763), but the 3.x server ignores them (its check ends at gray), so they are
   * never offered.
   */
  subsamp0: -768,
} as const;

const SUBSAMP_INDEX: Record<Subsampling, number> = { '1x': 0, '4x': 1, '2x': 2, gray: 3 };

const NAME_BY_NUMBER = new Map<number, string>([
  [ENC.raw, 'Raw'], [ENC.copyRect, 'CopyRect'], [ENC.rre, 'RRE'], [ENC.hextile, 'Hextile'], [ENC.zlib, 'Zlib'],
  [ENC.tight, 'Tight'], [ENC.zrle, 'ZRLE'], [ENC.jpeg, 'JPEG'], [ENC.h264, 'H.264'], [ENC.tightPng, 'TightPNG'],
]);
export function encodingLabel(n: number): string {
  return NAME_BY_NUMBER.get(n) ?? `#${n}`;
}

const PRIMARY: Record<EncodingName, number> = {
  tight: ENC.tight, zrle: ENC.zrle, hextile: ENC.hextile, raw: ENC.raw, h264: ENC.h264,
};

export interface EncodingContext {
  /** 24-bit true colour (noVNC decodes the compressed encodings only then). */
  fullDepth: boolean;
  /** The browser can decode H.264 through WebCodecs. */
  h264: boolean;
  /** The server is TurboVNC (fine-grained quality and subsampling pseudo-encodings understood). */
  turbo: boolean;
  /** Send the cursor pseudo-encodings (noVNC draws the cursor locally). */
  cursor: boolean;
}

/**
 * The SetEncodings list for the user's choices: the preferred encoding first, then noVNC's own
 * order; quality pseudo-encodings left out for lossless (the server then never uses JPEG).
 */
export function encodingList(p: Pick<ViewerPrefs, 'encoding' | 'quality' | 'compression' | 'lossless' | 'jpegQuality' | 'subsampling'>, ctx: EncodingContext): number[] {
  const order: number[] = ctx.fullDepth
    ? [ENC.tight, ENC.tightPng, ENC.zrle, ENC.jpeg, ENC.hextile, ENC.rre, ENC.zlib, ENC.raw]
    : [ENC.raw];
  if (ctx.fullDepth && ctx.h264) order.unshift(ENC.h264);
  const preferred = PRIMARY[p.encoding];
  const usable = order.includes(preferred) || preferred === ENC.raw;
  const list = [ENC.copyRect, ...(usable ? [preferred] : []), ...order.filter((e) => e !== preferred)];
  if (!p.lossless) {
    list.push(ENC.qualityLevel0 + clampInt(p.quality, 0, 9));
    // After the quality level: the server applies the list in order, and a level sets both.
    if (ctx.turbo && p.jpegQuality !== null) list.push(ENC.fineQuality0 + clampInt(p.jpegQuality, 1, 100));
    if (ctx.turbo && p.subsampling !== null) list.push(ENC.subsamp0 + SUBSAMP_INDEX[p.subsampling]);
  }
  list.push(ENC.compressLevel0 + clampInt(p.compression, 0, 9));
  list.push(
    ENC.desktopSize, ENC.lastRect, ENC.qemuExtendedKey, ENC.qemuLed, ENC.extendedDesktopSize, ENC.xvp,
    ENC.fence, ENC.continuousUpdates, ENC.desktopName, ENC.extendedClipboard, ENC.extendedMouseButtons,
  );
  if (ctx.fullDepth && ctx.cursor) list.push(ENC.vmwareCursor, ENC.cursor);
  return list;
}

function clampInt(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.round(v)));
}

/** RFB quality level → the JPEG quality and subsampling a TurboVNC server uses for it (README §4). */
export const TURBO_LEVELS: { jpeg: number; subsampling: Subsampling }[] = [
  15, 29, 41, 42, 62, 77, 79, 86, 92, 100,
].map((jpeg, i) => ({ jpeg, subsampling: i <= 2 ? '4x' : i <= 5 ? '2x' : '1x' }));
