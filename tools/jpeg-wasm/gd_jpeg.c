/*
 * gpu-desk's JPEG entry points for the viewer: one decompressor kept for the page's life (no
 * per-rectangle set-up), input and output in buffers the page writes and reads in place, RGBA out
 * (alpha 255, what putImageData takes). Errors leave through an imported function that throws in
 * JavaScript; the page then restores the stack pointer and calls gd_reset.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "jpeglib.h"

__attribute__((import_module("env"), import_name("gd_jpeg_error"))) void gd_jpeg_error(int code);

static struct jpeg_decompress_struct cinfo;
static struct jpeg_error_mgr jerr;
static int ready = 0;
/* A warning (data ended early, a corrupt segment) means a rectangle drawn partly grey: refused. */
static int warned = 0;
static unsigned char *in_buf = NULL, *out_buf = NULL;
static size_t in_cap = 0, out_cap = 0;

static void error_exit(j_common_ptr c) { gd_jpeg_error(c->err->msg_code); }
static void emit_message(j_common_ptr c, int level) { (void)c; if (level < 0) warned = 1; }
static void output_message(j_common_ptr c) { (void)c; }

static unsigned char *grow(unsigned char **buf, size_t *cap, size_t n) {
  if (n > *cap) {
    free(*buf);
    *buf = malloc(n);
    *cap = *buf ? n : 0;
  }
  return *buf;
}

unsigned char *gd_in(size_t n) { return grow(&in_buf, &in_cap, n); }
unsigned char *gd_out(size_t n) { return grow(&out_buf, &out_cap, n); }

/* Decodes the `len` bytes at gd_in into gd_out as w*h RGBA: 0, -1 where the image is not w x h,
 * -2 where the data was damaged (libjpeg warned). */
int gd_decode(size_t len, int w, int h) {
  warned = 0;
  if (!ready) {
    cinfo.err = jpeg_std_error(&jerr);
    jerr.error_exit = error_exit;
    jerr.emit_message = emit_message;
    jerr.output_message = output_message;
    jpeg_create_decompress(&cinfo);
    ready = 1;
  }
  jpeg_mem_src(&cinfo, in_buf, (unsigned long)len);
  jpeg_read_header(&cinfo, TRUE);
  if ((int)cinfo.image_width != w || (int)cinfo.image_height != h || (size_t)w * h * 4 > out_cap) {
    jpeg_abort_decompress(&cinfo);
    return -1;
  }
  cinfo.out_color_space = JCS_EXT_RGBA;
  jpeg_start_decompress(&cinfo);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW rows[16];
    int n = 0;
    for (; n < 16 && cinfo.output_scanline + n < cinfo.output_height; n++)
      rows[n] = out_buf + (size_t)(cinfo.output_scanline + n) * w * 4;
    jpeg_read_scanlines(&cinfo, rows, n);
  }
  jpeg_finish_decompress(&cinfo);
  return warned ? -2 : 0;
}

/* After an error: the decompressor back to its idle state (what libjpeg's longjmp recovery does). */
void gd_reset(void) {
  if (ready) jpeg_abort_decompress(&cinfo);
}
