/**
 * SSIM of two packed-RGB images of one size, on luma (BT.601), over 8x8 windows stepped by 4, with
 * the usual constants (Wang et al. 2004: K1 0.01, K2 0.03, L 255). Video mode's frames are lossy by
 * design; this is how close a frame comes to what the server shows, on the scale the issue's
 * targets use (libx264's own -ssim reports the same measure).
 */
export function ssim(a: Buffer, b: Buffer, w: number, h: number): number {
  if (a.length !== b.length || a.length !== w * h * 3) throw new Error(`ssim: sizes differ (${a.length} vs ${b.length} for ${w}x${h})`);
  const luma = (x: Buffer) => {
    const y = new Float64Array(w * h);
    for (let i = 0, j = 0; j < y.length; i += 3, j++) y[j] = 0.299 * x[i] + 0.587 * x[i + 1] + 0.114 * x[i + 2];
    return y;
  };
  const ya = luma(a);
  const yb = luma(b);
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  let sum = 0;
  let n = 0;
  for (let y0 = 0; y0 + 8 <= h; y0 += 4) {
    for (let x0 = 0; x0 + 8 <= w; x0 += 4) {
      let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
      for (let y = y0; y < y0 + 8; y++) {
        for (let x = x0; x < x0 + 8; x++) {
          const p = ya[y * w + x];
          const q = yb[y * w + x];
          sa += p; sb += q; saa += p * p; sbb += q * q; sab += p * q;
        }
      }
      const ma = sa / 64, mb = sb / 64;
      const va = saa / 64 - ma * ma, vb = sbb / 64 - mb * mb, cov = sab / 64 - ma * mb;
      sum += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
      n++;
    }
  }
  return n ? sum / n : 1;
}
