/*
 * bench:video's JPEG party quality: frames (raw BGRX, W x H, on stdin) through libjpeg-turbo's
 * TurboJPEG API at a JPEG quality and subsampling, as TurboVNC's Xvnc encodes Tight JPEG, decoded
 * back to BGRX on stdout; the total compressed bytes on stderr. The prototypes are declared here
 * (the machine has libturbojpeg.so.0 but not always its header); the API is stable since 1.2.
 * Usage: jpegRoundTrip QUALITY SUBSAMP(0=4:4:4 1=4:2:2 2=4:2:0 3=gray) WIDTH HEIGHT
 */
#include <stdio.h>
#include <stdlib.h>

typedef void *tjhandle;
extern tjhandle tjInitCompress(void);
extern tjhandle tjInitDecompress(void);
extern int tjCompress2(tjhandle, const unsigned char *, int, int, int, int, unsigned char **, unsigned long *, int, int, int);
extern int tjDecompress2(tjhandle, const unsigned char *, unsigned long, unsigned char *, int, int, int, int, int);
extern char *tjGetErrorStr(void);
extern void tjFree(unsigned char *);
#define TJPF_BGRX 3

int main(int argc, char **argv) {
  if (argc != 5) { fprintf(stderr, "usage: %s QUALITY SUBSAMP WIDTH HEIGHT\n", argv[0]); return 2; }
  int q = atoi(argv[1]), samp = atoi(argv[2]), w = atoi(argv[3]), h = atoi(argv[4]);
  size_t n = (size_t)w * h * 4;
  unsigned char *in = malloc(n), *out = malloc(n), *jpeg = NULL;
  tjhandle c = tjInitCompress(), d = tjInitDecompress();
  unsigned long total = 0, frames = 0;
  while (fread(in, 1, n, stdin) == n) {
    unsigned long size = 0;
    if (tjCompress2(c, in, w, 0, h, TJPF_BGRX, &jpeg, &size, samp, q, 0) != 0) { fprintf(stderr, "compress: %s\n", tjGetErrorStr()); return 1; }
    if (tjDecompress2(d, jpeg, size, out, w, 0, h, TJPF_BGRX, 0) != 0) { fprintf(stderr, "decompress: %s\n", tjGetErrorStr()); return 1; }
    tjFree(jpeg);
    jpeg = NULL;
    fwrite(out, 1, n, stdout);
    total += size;
    frames++;
  }
  fprintf(stderr, "%lu %lu\n", frames, total);
  return 0;
}
