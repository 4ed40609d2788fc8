#!/usr/bin/env node
// Draws gpu-desk's icon (a monitor showing GPU utilisation bars) and writes every format the
// installers need: icon.png (1024), icons/<n>x<n>.png (Linux), icon.ico (Windows, PNG entries),
// icon.icns (macOS, PNG entries), tray icons (colour for Windows/Linux, template for macOS).
// No image library: shapes are signed-distance functions, 4×4 supersampled, PNG via zlib.
// Run: node resources/make-icons.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));

// ---- PNG ----
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
export function encodePng(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---- drawing ----
const sdRoundRect = (x, y, cx, cy, hw, hh, r) => {
  const qx = Math.abs(x - cx) - hw + r;
  const qy = Math.abs(y - cy) - hh + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
};
const mix = (a, b, t) => a.map((v, i) => v + (b[i] - v) * t);
const over = (dst, src, a) => [dst[0] + (src[0] - dst[0]) * a, dst[1] + (src[1] - dst[1]) * a, dst[2] + (src[2] - dst[2]) * a, dst[3] + (1 - dst[3]) * a];

/** Colour of the full icon at (x, y) in [0,1]²: premultiplied-free RGBA 0..1. */
function iconSample(x, y) {
  let c = [0, 0, 0, 0];
  // Background tile: macOS-style rounded square with a little margin.
  if (sdRoundRect(x, y, 0.5, 0.5, 0.44, 0.44, 0.1) < 0) c = [...mix([0.13, 0.16, 0.23], [0.05, 0.07, 0.11], y), 1];
  // Monitor bezel and screen.
  const bezel = sdRoundRect(x, y, 0.5, 0.44, 0.31, 0.215, 0.035);
  if (bezel < 0) c = over(c, [0.85, 0.88, 0.93], 1);
  const screen = sdRoundRect(x, y, 0.5, 0.44, 0.28, 0.185, 0.02);
  if (screen < 0) c = over(c, mix([0.04, 0.33, 0.29], [0.02, 0.14, 0.16], (y - 0.255) / 0.37), 1);
  // Stand and foot.
  if (sdRoundRect(x, y, 0.5, 0.695, 0.045, 0.045, 0.005) < 0) c = over(c, [0.7, 0.74, 0.8], 1);
  if (sdRoundRect(x, y, 0.5, 0.75, 0.14, 0.018, 0.018) < 0) c = over(c, [0.85, 0.88, 0.93], 1);
  // Utilisation bars on the screen: the GPU at work, in the app's accent green.
  const bars = [0.42, 0.7, 0.55, 0.9];
  bars.forEach((h, i) => {
    const cx = 0.335 + i * 0.11;
    const top = 0.585 - h * 0.27;
    if (sdRoundRect(x, y, cx, (top + 0.585) / 2, 0.036, (0.585 - top) / 2, 0.01) < 0) c = over(c, mix([0.46, 0.95, 0.62], [0.24, 0.86, 0.6], i / 3), 1);
  });
  return c;
}

/** Tray glyph: monitor outline + bars, one colour; macOS uses it as a template (black + alpha). */
function traySample(x, y) {
  const bezel = sdRoundRect(x, y, 0.5, 0.42, 0.46, 0.32, 0.06);
  const inner = sdRoundRect(x, y, 0.5, 0.42, 0.38, 0.24, 0.03);
  let a = bezel < 0 && inner >= 0 ? 1 : 0;
  if (sdRoundRect(x, y, 0.5, 0.86, 0.26, 0.06, 0.05) < 0) a = 1;
  if (sdRoundRect(x, y, 0.5, 0.78, 0.07, 0.06, 0) < 0) a = 1;
  [0.45, 0.75, 0.6].forEach((h, i) => {
    const cx = 0.3 + i * 0.2;
    const top = 0.6 - h * 0.3;
    if (sdRoundRect(x, y, cx, (top + 0.6) / 2, 0.06, (0.6 - top) / 2, 0) < 0) a = 1;
  });
  return [0, 0, 0, a];
}

function render(size, sample, tint) {
  const out = Buffer.alloc(size * size * 4);
  const n = size <= 64 ? 8 : 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const s = sample((px + (sx + 0.5) / n) / size, (py + (sy + 0.5) / n) / size);
          r += s[0] * s[3]; g += s[1] * s[3]; b += s[2] * s[3]; a += s[3];
        }
      }
      const i = (py * size + px) * 4;
      const col = tint ?? (a > 0 ? [r / a, g / a, b / a] : [0, 0, 0]);
      out[i] = Math.round(col[0] * 255);
      out[i + 1] = Math.round(col[1] * 255);
      out[i + 2] = Math.round(col[2] * 255);
      out[i + 3] = Math.round((a / (n * n)) * 255);
    }
  }
  return out;
}

// ---- containers ----
function encodeIco(pngs) {
  // ICONDIR + one ICONDIRENTRY per image; PNG payloads are valid since Windows Vista.
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(pngs.length, 4);
  let offset = 6 + 16 * pngs.length;
  const entries = pngs.map(({ size, png }) => {
    const e = Buffer.alloc(16);
    e[0] = size >= 256 ? 0 : size;
    e[1] = size >= 256 ? 0 : size;
    e.writeUInt16LE(1, 4); // planes
    e.writeUInt16LE(32, 6); // bpp
    e.writeUInt32LE(png.length, 8);
    e.writeUInt32LE(offset, 12);
    offset += png.length;
    return e;
  });
  return Buffer.concat([header, ...entries, ...pngs.map((p) => p.png)]);
}

// OSType → pixel size for PNG-bearing icns elements (ic11–ic14 are the @2x ones: 16@2x … 512@2x).
const ICNS_TYPES = [['icp4', 16], ['icp5', 32], ['icp6', 64], ['ic07', 128], ['ic08', 256], ['ic09', 512], ['ic10', 1024], ['ic11', 32], ['ic12', 64], ['ic13', 512], ['ic14', 1024]];
function encodeIcns(pngBySize) {
  const parts = ICNS_TYPES.map(([type, size]) => {
    const png = pngBySize.get(size);
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([head, png]);
  });
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(body.length + 8, 4);
  return Buffer.concat([head, body]);
}

export function buildAll(outDir = here) {
  const sizes = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
  const png = new Map(sizes.map((s) => [s, encodePng(s, render(s, iconSample))]));
  mkdirSync(join(outDir, 'icons'), { recursive: true });
  mkdirSync(join(outDir, 'tray'), { recursive: true });
  writeFileSync(join(outDir, 'icon.png'), png.get(1024));
  for (const s of [16, 32, 48, 64, 128, 256, 512]) writeFileSync(join(outDir, 'icons', `${s}x${s}.png`), png.get(s));
  writeFileSync(join(outDir, 'icon.ico'), encodeIco([16, 24, 32, 48, 64, 128, 256].map((size) => ({ size, png: png.get(size) }))));
  writeFileSync(join(outDir, 'icon.icns'), encodeIcns(png));
  const light = [0.92, 0.95, 0.98];
  writeFileSync(join(outDir, 'tray', 'trayTemplate.png'), encodePng(16, render(16, traySample)));
  writeFileSync(join(outDir, 'tray', 'trayTemplate@2x.png'), encodePng(32, render(32, traySample)));
  writeFileSync(join(outDir, 'tray', 'tray.png'), encodePng(32, render(32, iconSample)));
  writeFileSync(join(outDir, 'tray', 'tray@2x.png'), encodePng(64, render(64, iconSample)));
  writeFileSync(join(outDir, 'tray', 'trayLight.png'), encodePng(32, render(32, traySample, light)));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildAll();
  console.log(`icons written to ${here}`);
}
