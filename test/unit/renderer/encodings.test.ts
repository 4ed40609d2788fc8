import { describe, expect, it } from 'vitest';
import { ENC, encodingList, TURBO_LEVELS } from '../../../src/renderer/viewer/encodings';
import { PRESETS, matchPreset } from '../../../src/renderer/viewer/presets';

const base = { encoding: 'tight' as const, quality: 6, compression: 2, lossless: false, jpegQuality: null, subsampling: null };
const ctx = { fullDepth: true, h264: false, turbo: false, cursor: true };

describe('encodingList', () => {
  it('puts the preferred encoding right after CopyRect and sends quality and compression levels', () => {
    const l = encodingList({ ...base, encoding: 'zrle' }, ctx);
    expect(l.slice(0, 3)).toEqual([ENC.copyRect, ENC.zrle, ENC.tight]);
    expect(l).toContain(ENC.qualityLevel0 + 6);
    expect(l).toContain(ENC.compressLevel0 + 2);
    expect(l.filter((e) => e === ENC.zrle)).toHaveLength(1);
  });

  it('lossless leaves every JPEG quality pseudo-encoding out', () => {
    const l = encodingList({ ...base, lossless: true, jpegQuality: 80, subsampling: '2x' }, { ...ctx, turbo: true });
    expect(l.some((e) => e >= ENC.qualityLevel0 && e <= ENC.qualityLevel0 + 9)).toBe(false);
    expect(l.some((e) => e >= ENC.fineQuality0 && e <= ENC.fineQuality0 + 100)).toBe(false);
    expect(l).toContain(ENC.compressLevel0 + 2);
  });

  it('sends TurboVNC fine-grained quality and subsampling only to TurboVNC servers', () => {
    const p = { ...base, jpegQuality: 95, subsampling: '1x' as const };
    expect(encodingList(p, { ...ctx, turbo: true })).toEqual(expect.arrayContaining([-512 + 95, -768 + 0]));
    expect(encodingList(p, ctx).some((e) => e <= -412 && e >= -768)).toBe(false);
    expect(encodingList({ ...p, subsampling: '4x' }, { ...ctx, turbo: true })).toContain(-768 + 1);
    expect(encodingList({ ...p, subsampling: 'gray' }, { ...ctx, turbo: true })).toContain(-768 + 3);
  });

  it('sends fine quality and subsampling after the quality level, which would otherwise reset them', () => {
    const l = encodingList({ ...base, quality: 2, jpegQuality: 80, subsampling: '2x' }, { ...ctx, turbo: true });
    const level = l.indexOf(ENC.qualityLevel0 + 2);
    expect(level).toBeGreaterThanOrEqual(0);
    expect(l.indexOf(-512 + 80)).toBeGreaterThan(level);
    expect(l.indexOf(-768 + 2)).toBeGreaterThan(level);
  });

  it('sends JPEG quality 0 as 1 (TurboVNC ignores -512) and never the 8X/16X subsampling codes its server ignores', () => {
    const l = encodingList({ ...base, jpegQuality: 0, subsampling: 'gray' }, { ...ctx, turbo: true });
    expect(l).toContain(-512 + 1);
    expect(l).not.toContain(-512);
    expect(l.filter((e) => e >= -768 && e <= -763)).toEqual([-768 + 3]);
    expect(encodingList({ ...base, jpegQuality: 250 }, { ...ctx, turbo: true })).toContain(-412);
  });

  it('offers H.264 only when the browser decodes it', () => {
    expect(encodingList({ ...base, encoding: 'h264' }, ctx)).not.toContain(ENC.h264);
    expect(encodingList({ ...base, encoding: 'h264' }, { ...ctx, h264: true }).slice(0, 2)).toEqual([ENC.copyRect, ENC.h264]);
  });

  it('clamps out-of-range levels instead of sending a foreign pseudo-encoding', () => {
    const l = encodingList({ ...base, quality: 42, compression: -3 }, ctx);
    expect(l).toContain(ENC.qualityLevel0 + 9);
    expect(l).toContain(ENC.compressLevel0);
  });

  it('asks for continuous updates and fences (the latency path) and the cursor only at full depth', () => {
    expect(encodingList(base, ctx)).toEqual(expect.arrayContaining([ENC.fence, ENC.continuousUpdates, ENC.cursor]));
    const low = encodingList(base, { ...ctx, fullDepth: false });
    expect(low).not.toContain(ENC.tight);
    expect(low).not.toContain(ENC.cursor);
  });
});

describe('TurboVNC mapping and presets', () => {
  it('maps RFB levels to the JPEG quality and subsampling TurboVNC uses (docs §4)', () => {
    expect(TURBO_LEVELS.map((l) => l.jpeg)).toEqual([15, 29, 41, 42, 62, 77, 79, 86, 92, 100]);
    expect(TURBO_LEVELS.map((l) => l.subsampling)).toEqual(['4x', '4x', '4x', '2x', '2x', '2x', '1x', '1x', '1x', '1x']);
  });

  it("has TurboVNC Viewer's presets and recognises each", () => {
    const byId = Object.fromEntries(PRESETS.map((p) => [p.id, p.prefs]));
    expect(byId.perceptual).toMatchObject({ jpegQuality: 95, subsampling: '1x', compression: 1, lossless: false });
    expect(byId.medium).toMatchObject({ jpegQuality: 80, subsampling: '2x', compression: 6 });
    expect(byId.low).toMatchObject({ jpegQuality: 30, subsampling: '4x', compression: 7 });
    expect(byId.lossless).toMatchObject({ lossless: true, compression: 0 });
    expect(byId.losslessZlib).toMatchObject({ lossless: true, compression: 6 });
    for (const p of PRESETS) expect(matchPreset(p.prefs)).toBe(p.id);
    expect(matchPreset({ ...base, quality: 3 })).toBeNull();
  });
});
