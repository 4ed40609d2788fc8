/*
 * WebAssembly SIMD (simd128) for the two stages that take most of libjpeg-turbo's decoding time
 * in gpu-desk's viewer (profiled on TurboVNC's 4:4:4 rectangles: the inverse DCT 45 %, YCbCr to
 * RGB 26 %, the Huffman decoding 16 %). libjpeg-turbo has no WebAssembly SIMD of its own; its
 * x86 and Arm code is assembly or Neon intrinsics. These compute exactly what its C code computes
 * (jidctint.c's islow IDCT and jdcolext.c's table-driven colour conversion, in the same 32-bit
 * integer arithmetic, four lanes at a time), so the pixels are the same bytes as the C build's.
 * Everything else comes from jsimd_none.c (no SIMD).
 */
#define jsimd_can_idct_islow jsimd_none_can_idct_islow
#define jsimd_idct_islow jsimd_none_idct_islow
#define jsimd_can_ycc_rgb jsimd_none_can_ycc_rgb
#define jsimd_ycc_rgb_convert jsimd_none_ycc_rgb_convert
#include "jsimd_none.c"
#undef jsimd_can_idct_islow
#undef jsimd_idct_islow
#undef jsimd_can_ycc_rgb
#undef jsimd_ycc_rgb_convert

#include <string.h>
#include <wasm_simd128.h>

GLOBAL(int) jsimd_can_idct_islow(void);
GLOBAL(void) jsimd_idct_islow(j_decompress_ptr cinfo, jpeg_component_info *compptr, JCOEFPTR coef_block, JSAMPARRAY output_buf, JDIMENSION output_col);
GLOBAL(int) jsimd_can_ycc_rgb(void);
GLOBAL(void) jsimd_ycc_rgb_convert(j_decompress_ptr cinfo, JSAMPIMAGE input_buf, JDIMENSION input_row, JSAMPARRAY output_buf, int num_rows);

/* ---- Inverse DCT (jidctint.c, CONST_BITS 13, PASS1_BITS 2) ---- */

#define CONST_BITS  13
#define PASS1_BITS  2

static inline v128_t mulc(v128_t v, int c) { return wasm_i32x4_mul(v, wasm_i32x4_splat(c)); }

/*
 * One 1-D pass of jpeg_idct_islow on four lanes (four columns in pass 1, four rows in pass 2):
 * v[k] holds input k, and receives output k before descaling (the C code's tmpNN +/- tmpN).
 */
static inline void idct_1d(v128_t v[8], int shift)
{
  v128_t z1, z2, z3, z4, z5, tmp0, tmp1, tmp2, tmp3, tmp10, tmp11, tmp12, tmp13;
  const v128_t round = wasm_i32x4_splat(1 << (shift - 1));

  z2 = v[2];
  z3 = v[6];
  z1 = mulc(wasm_i32x4_add(z2, z3), 4433);                 /* FIX_0_541196100 */
  tmp2 = wasm_i32x4_add(z1, mulc(z3, -15137));              /* -FIX_1_847759065 */
  tmp3 = wasm_i32x4_add(z1, mulc(z2, 6270));                /* FIX_0_765366865 */
  tmp0 = wasm_i32x4_shl(wasm_i32x4_add(v[0], v[4]), CONST_BITS);
  tmp1 = wasm_i32x4_shl(wasm_i32x4_sub(v[0], v[4]), CONST_BITS);
  tmp10 = wasm_i32x4_add(tmp0, tmp3);
  tmp13 = wasm_i32x4_sub(tmp0, tmp3);
  tmp11 = wasm_i32x4_add(tmp1, tmp2);
  tmp12 = wasm_i32x4_sub(tmp1, tmp2);

  tmp0 = v[7];
  tmp1 = v[5];
  tmp2 = v[3];
  tmp3 = v[1];
  z1 = wasm_i32x4_add(tmp0, tmp3);
  z2 = wasm_i32x4_add(tmp1, tmp2);
  z3 = wasm_i32x4_add(tmp0, tmp2);
  z4 = wasm_i32x4_add(tmp1, tmp3);
  z5 = mulc(wasm_i32x4_add(z3, z4), 9633);                  /* FIX_1_175875602 */
  tmp0 = mulc(tmp0, 2446);                                  /* FIX_0_298631336 */
  tmp1 = mulc(tmp1, 16819);                                 /* FIX_2_053119869 */
  tmp2 = mulc(tmp2, 25172);                                 /* FIX_3_072711026 */
  tmp3 = mulc(tmp3, 12299);                                 /* FIX_1_501321110 */
  z1 = mulc(z1, -7373);                                     /* -FIX_0_899976223 */
  z2 = mulc(z2, -20995);                                    /* -FIX_2_562915447 */
  z3 = mulc(z3, -16069);                                    /* -FIX_1_961570560 */
  z4 = mulc(z4, -3196);                                     /* -FIX_0_390180644 */
  z3 = wasm_i32x4_add(z3, z5);
  z4 = wasm_i32x4_add(z4, z5);
  tmp0 = wasm_i32x4_add(tmp0, wasm_i32x4_add(z1, z3));
  tmp1 = wasm_i32x4_add(tmp1, wasm_i32x4_add(z2, z4));
  tmp2 = wasm_i32x4_add(tmp2, wasm_i32x4_add(z2, z3));
  tmp3 = wasm_i32x4_add(tmp3, wasm_i32x4_add(z1, z4));

  /* DESCALE(x, n) = (x + 2^(n-1)) >> n, arithmetic */
#define DESC(x)  wasm_i32x4_shr(wasm_i32x4_add((x), round), shift)
  v[0] = DESC(wasm_i32x4_add(tmp10, tmp3));
  v[7] = DESC(wasm_i32x4_sub(tmp10, tmp3));
  v[1] = DESC(wasm_i32x4_add(tmp11, tmp2));
  v[6] = DESC(wasm_i32x4_sub(tmp11, tmp2));
  v[2] = DESC(wasm_i32x4_add(tmp12, tmp1));
  v[5] = DESC(wasm_i32x4_sub(tmp12, tmp1));
  v[3] = DESC(wasm_i32x4_add(tmp13, tmp0));
  v[4] = DESC(wasm_i32x4_sub(tmp13, tmp0));
#undef DESC
}

/* 4x4 transpose of 32-bit lanes. */
static inline void transpose4(v128_t *a, v128_t *b, v128_t *c, v128_t *d)
{
  v128_t t0 = wasm_i32x4_shuffle(*a, *b, 0, 4, 1, 5);
  v128_t t1 = wasm_i32x4_shuffle(*a, *b, 2, 6, 3, 7);
  v128_t t2 = wasm_i32x4_shuffle(*c, *d, 0, 4, 1, 5);
  v128_t t3 = wasm_i32x4_shuffle(*c, *d, 2, 6, 3, 7);
  *a = wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5);
  *b = wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7);
  *c = wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5);
  *d = wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7);
}

GLOBAL(int)
jsimd_can_idct_islow(void)
{
  return DCTSIZE == 8 && sizeof(JCOEF) == 2 && BITS_IN_JSAMPLE == 8 && sizeof(ISLOW_MULT_TYPE) == 2;
}

GLOBAL(void)
jsimd_idct_islow(j_decompress_ptr cinfo, jpeg_component_info *compptr,
                 JCOEFPTR coef_block, JSAMPARRAY output_buf,
                 JDIMENSION output_col)
{
  const ISLOW_MULT_TYPE *quant = (const ISLOW_MULT_TYPE *)compptr->dct_table;
  v128_t lo[8], hi[8];   /* columns 0-3 and 4-7 of each row */
  int r;
  (void)cinfo;

  /* Pass 1: columns, four at a time; lane = column. Dequantize: coefficient x quantizer, 32-bit. */
  for (r = 0; r < 8; r++) {
    v128_t c = wasm_v128_load(coef_block + r * 8);
    v128_t q = wasm_v128_load(quant + r * 8);
    lo[r] = wasm_i32x4_mul(wasm_i32x4_extend_low_i16x8(c), wasm_i32x4_extend_low_i16x8(q));
    hi[r] = wasm_i32x4_mul(wasm_i32x4_extend_high_i16x8(c), wasm_i32x4_extend_high_i16x8(q));
  }
  idct_1d(lo, CONST_BITS - PASS1_BITS);
  idct_1d(hi, CONST_BITS - PASS1_BITS);

  /* Pass 2: rows, four at a time; lane = row. lo[k]/hi[k] hold row k's columns; transpose so that
   * a[k] holds column k of rows 0-3 and b[k] of rows 4-7. */
  v128_t a[8], b[8];
  a[0] = lo[0]; a[1] = lo[1]; a[2] = lo[2]; a[3] = lo[3];
  transpose4(&a[0], &a[1], &a[2], &a[3]);                   /* rows 0-3, columns 0-3 */
  a[4] = hi[0]; a[5] = hi[1]; a[6] = hi[2]; a[7] = hi[3];
  transpose4(&a[4], &a[5], &a[6], &a[7]);                   /* rows 0-3, columns 4-7 */
  b[0] = lo[4]; b[1] = lo[5]; b[2] = lo[6]; b[3] = lo[7];
  transpose4(&b[0], &b[1], &b[2], &b[3]);                   /* rows 4-7, columns 0-3 */
  b[4] = hi[4]; b[5] = hi[5]; b[6] = hi[6]; b[7] = hi[7];
  transpose4(&b[4], &b[5], &b[6], &b[7]);                   /* rows 4-7, columns 4-7 */
  idct_1d(a, CONST_BITS + PASS1_BITS + 3);
  idct_1d(b, CONST_BITS + PASS1_BITS + 3);

  /* Back to rows, then range-limit: the C code's table is clamp(x + 128, 0, 255) for every value a
   * valid stream produces (|x| < 512), which the saturating narrowings give. */
  transpose4(&a[0], &a[1], &a[2], &a[3]);
  transpose4(&a[4], &a[5], &a[6], &a[7]);
  transpose4(&b[0], &b[1], &b[2], &b[3]);
  transpose4(&b[4], &b[5], &b[6], &b[7]);
  const v128_t center = wasm_i32x4_splat(CENTERJSAMPLE);
  for (r = 0; r < 4; r += 2) {
    /* a[r] = row r columns 0-3, a[4 + r] = row r columns 4-7 */
    v128_t r0 = wasm_i16x8_narrow_i32x4(wasm_i32x4_add(a[r], center), wasm_i32x4_add(a[4 + r], center));
    v128_t r1 = wasm_i16x8_narrow_i32x4(wasm_i32x4_add(a[r + 1], center), wasm_i32x4_add(a[5 + r], center));
    v128_t p = wasm_u8x16_narrow_i16x8(r0, r1);
    uint64_t w0 = wasm_i64x2_extract_lane(p, 0), w1 = wasm_i64x2_extract_lane(p, 1);
    memcpy(output_buf[r] + output_col, &w0, 8);
    memcpy(output_buf[r + 1] + output_col, &w1, 8);
    r0 = wasm_i16x8_narrow_i32x4(wasm_i32x4_add(b[r], center), wasm_i32x4_add(b[4 + r], center));
    r1 = wasm_i16x8_narrow_i32x4(wasm_i32x4_add(b[r + 1], center), wasm_i32x4_add(b[5 + r], center));
    p = wasm_u8x16_narrow_i16x8(r0, r1);
    w0 = wasm_i64x2_extract_lane(p, 0);
    w1 = wasm_i64x2_extract_lane(p, 1);
    memcpy(output_buf[4 + r] + output_col, &w0, 8);
    memcpy(output_buf[5 + r] + output_col, &w1, 8);
  }
}

/* ---- YCbCr to RGB (jdcolor.c's tables, SCALEBITS 16) ---- */

#define SCALEBITS  16
#define ONE_HALF   ((JLONG)1 << (SCALEBITS - 1))
#define FIX(x)     ((JLONG)((x) * (1L << SCALEBITS) + 0.5))

GLOBAL(int)
jsimd_can_ycc_rgb(void)
{
  return BITS_IN_JSAMPLE == 8;
}

static inline int clamp255(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

/* The C code's per-pixel arithmetic (its tables, computed), for the tail and other pixel formats. */
static inline void ycc_pixel(JSAMPROW out, int y, int cb, int cr, int ri, int gi, int bi, int size)
{
  int xcb = cb - CENTERJSAMPLE, xcr = cr - CENTERJSAMPLE;
  out[ri] = (JSAMPLE)clamp255(y + (int)((FIX(1.40200) * xcr + ONE_HALF) >> SCALEBITS));
  out[gi] = (JSAMPLE)clamp255(y + (int)(((-FIX(0.34414)) * xcb + ONE_HALF + (-FIX(0.71414)) * xcr) >> SCALEBITS));
  out[bi] = (JSAMPLE)clamp255(y + (int)((FIX(1.77200) * xcb + ONE_HALF) >> SCALEBITS));
  if (size == 4) out[6 - ri - gi - bi] = 0xFF;
}

/* Four pixels' worth of one channel: y + ((a*xcb + b*xcr + ONE_HALF) >> 16), clamped later. */
static inline v128_t chan(v128_t y, v128_t xcb, v128_t xcr, int a, int b)
{
  v128_t acc = wasm_i32x4_add(mulc(xcb, a), mulc(xcr, b));
  return wasm_i32x4_add(y, wasm_i32x4_shr(wasm_i32x4_add(acc, wasm_i32x4_splat(ONE_HALF)), SCALEBITS));
}

/* Sixteen u8 lanes as four i32x4. */
static inline void widen(v128_t v, v128_t o[4])
{
  v128_t l = wasm_u16x8_extend_low_u8x16(v), h = wasm_u16x8_extend_high_u8x16(v);
  o[0] = wasm_u32x4_extend_low_u16x8(l);
  o[1] = wasm_u32x4_extend_high_u16x8(l);
  o[2] = wasm_u32x4_extend_low_u16x8(h);
  o[3] = wasm_u32x4_extend_high_u16x8(h);
}

static inline v128_t pack(v128_t c[4])
{
  return wasm_u8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(c[0], c[1]), wasm_i16x8_narrow_i32x4(c[2], c[3]));
}

GLOBAL(void)
jsimd_ycc_rgb_convert(j_decompress_ptr cinfo, JSAMPIMAGE input_buf,
                      JDIMENSION input_row, JSAMPARRAY output_buf,
                      int num_rows)
{
  const JDIMENSION width = cinfo->output_width;
  const int cs = cinfo->out_color_space;
  const int ri = rgb_red[cs], gi = rgb_green[cs], bi = rgb_blue[cs], size = rgb_pixelsize[cs];
  const int rgba = ri == 0 && gi == 1 && bi == 2 && size == 4;
  const v128_t c128 = wasm_i32x4_splat(CENTERJSAMPLE);
  const v128_t alpha = wasm_i8x16_splat((int8_t)0xFF);

  while (--num_rows >= 0) {
    JSAMPROW y = input_buf[0][input_row], cb = input_buf[1][input_row], cr = input_buf[2][input_row];
    JSAMPROW out = *output_buf++;
    JDIMENSION col = 0;
    input_row++;
    if (rgba) {
      for (; col + 16 <= width; col += 16) {
        v128_t vy[4], vcb[4], vcr[4], r[4], g[4], b[4];
        widen(wasm_v128_load(y + col), vy);
        widen(wasm_v128_load(cb + col), vcb);
        widen(wasm_v128_load(cr + col), vcr);
        for (int k = 0; k < 4; k++) {
          v128_t xcb = wasm_i32x4_sub(vcb[k], c128), xcr = wasm_i32x4_sub(vcr[k], c128);
          r[k] = chan(vy[k], xcb, xcr, 0, FIX(1.40200));
          g[k] = chan(vy[k], xcb, xcr, -FIX(0.34414), -FIX(0.71414));
          b[k] = chan(vy[k], xcb, xcr, FIX(1.77200), 0);
        }
        v128_t R = pack(r), G = pack(g), B = pack(b);
        v128_t rg_lo = wasm_i8x16_shuffle(R, G, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        v128_t rg_hi = wasm_i8x16_shuffle(R, G, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        v128_t ba_lo = wasm_i8x16_shuffle(B, alpha, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        v128_t ba_hi = wasm_i8x16_shuffle(B, alpha, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        JSAMPROW o = out + col * 4;
        wasm_v128_store(o, wasm_i16x8_shuffle(rg_lo, ba_lo, 0, 8, 1, 9, 2, 10, 3, 11));
        wasm_v128_store(o + 16, wasm_i16x8_shuffle(rg_lo, ba_lo, 4, 12, 5, 13, 6, 14, 7, 15));
        wasm_v128_store(o + 32, wasm_i16x8_shuffle(rg_hi, ba_hi, 0, 8, 1, 9, 2, 10, 3, 11));
        wasm_v128_store(o + 48, wasm_i16x8_shuffle(rg_hi, ba_hi, 4, 12, 5, 13, 6, 14, 7, 15));
      }
    }
    for (; col < width; col++)
      ycc_pixel(out + col * size, y[col], cb[col], cr[col], ri, gi, bi, size);
  }
}
