/**
 * Numbers people read, in the app's language, by Intl: dates, sizes, rates, durations. Pure
 * functions of (value, language), so the unit tests run them in Node for both languages.
 */
import type { Language } from '../../shared/language';

const cache = new Map<string, Intl.NumberFormat>();
function nf(language: Language, o: Intl.NumberFormatOptions): Intl.NumberFormat {
  const k = `${language}|${JSON.stringify(o)}`;
  let f = cache.get(k);
  if (!f) cache.set(k, (f = new Intl.NumberFormat(language, o)));
  return f;
}

function unit(language: Language, value: number, u: string, digits: number, display: 'short' | 'long' = 'short'): string {
  return nf(language, { style: 'unit', unit: u, unitDisplay: display, maximumFractionDigits: digits }).format(value);
}

/** Fewer decimals as the number grows: 1.23, 12.3, 123. */
const digitsFor = (v: number) => (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);

export function formatNumber(n: number, language: Language, maxFractionDigits = 1): string {
  return nf(language, { maximumFractionDigits: maxFractionDigits }).format(n);
}

export function formatPercent(fraction: number, language: Language): string {
  return nf(language, { style: 'percent', maximumFractionDigits: 0 }).format(fraction);
}

// Decimal (SI) units, as Intl names them: 1 kB = 1000 bytes.
const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte', 'petabyte'];

function scaled(n: number): { value: number; step: number } {
  let step = 0;
  let v = n;
  while (Math.abs(v) >= 1000 && step < BYTE_UNITS.length - 1) {
    v /= 1000;
    step++;
  }
  return { value: v, step };
}

/** 1234567 → "1.23 MB", 999 → "999 bytes" (en); "1.23 MB", "999字节" (zh-CN). */
export function formatBytes(n: number, language: Language): string {
  const { value, step } = scaled(n);
  // CLDR's short English name for a byte is "byte", even in the plural.
  if (step === 0) return unit(language, value, 'byte', 0, 'long');
  return unit(language, value, BYTE_UNITS[step], digitsFor(value));
}

/** Bytes per second → "1.23 MB/s", "999 B/s" (en); "1.23 MB/秒", "999 B/秒" (zh-CN). */
export function formatByteRate(bytesPerSecond: number, language: Language): string {
  const { value, step } = scaled(bytesPerSecond);
  if (step === 0) return `${formatNumber(value, language, 0)} B${language === 'zh-CN' ? '/秒' : '/s'}`;
  return unit(language, value, `${BYTE_UNITS[step]}-per-second`, digitsFor(value));
}

/** Bits per second → "45.2 Mb/s" (en), "45.2 Mb/秒" (zh-CN): link speeds are told in megabits. */
export function formatBitRate(bitsPerSecond: number, language: Language): string {
  const mbit = bitsPerSecond / 1e6;
  return unit(language, mbit, 'megabit-per-second', digitsFor(mbit));
}

// Intl has no frame unit; the two languages' own way of saying it.
const FPS: Record<Language, (n: string) => string> = { en: (n) => `${n} fps`, 'zh-CN': (n) => `${n} 帧/秒` };

/** `digits` fixes the decimals (a figure that updates every second should not change width). */
export function formatFps(fps: number, language: Language, digits?: number): string {
  const n = digits === undefined ? formatNumber(fps, language, fps >= 10 ? 0 : 1) : nf(language, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(fps);
  return FPS[language](n);
}

/** Round-trip and other short times: "12 ms", "1.5 sec" (en); "12毫秒", "1.5秒" (zh-CN). */
export function formatMs(ms: number, language: Language): string {
  return ms < 1000 ? unit(language, ms, 'millisecond', ms < 10 ? 1 : 0) : unit(language, ms / 1000, 'second', 1);
}

/**
 * A span of time as its two largest parts: "1 hr 59 min", "3 min 5 sec", "42 sec" (en);
 * "1小时 59分钟" (zh-CN). (Intl.DurationFormat is not in Node 20, where the tests run.)
 */
export function formatDuration(ms: number, language: Language): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const parts: [number, string][] = [
    [Math.floor(total / 86400), 'day'],
    [Math.floor((total % 86400) / 3600), 'hour'],
    [Math.floor((total % 3600) / 60), 'minute'],
    [total % 60, 'second'],
  ];
  const first = parts.findIndex(([v]) => v > 0);
  if (first < 0) return unit(language, 0, 'second', 0);
  return parts
    .slice(first, first + 2)
    .filter(([v]) => v > 0)
    .map(([v, u]) => unit(language, v, u, 0))
    .join(' ');
}

/** A moment, e.g. a key's creation: "Dec 1, 2026, 7:30 PM" (en), "2026年12月1日 19:30" (zh-CN). */
export function formatDateTime(at: Date | number, language: Language): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(at);
}

export function formatDate(at: Date | number, language: Language): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium' }).format(at);
}

/** "3 minutes ago", "in 2 hours" (en); "3分钟前", "2小时后" (zh-CN). */
export function formatRelative(at: Date | number, language: Language, now: number = Date.now()): string {
  const s = Math.round((+at - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  const abs = Math.abs(s);
  if (abs < 60) return rtf.format(s, 'second');
  if (abs < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (abs < 86400) return rtf.format(Math.round(s / 3600), 'hour');
  return rtf.format(Math.round(s / 86400), 'day');
}

/** "a, b, and c" (en), "a、b和c" (zh-CN). */
export function formatList(items: string[], language: Language): string {
  return new Intl.ListFormat(language, { style: 'long', type: 'conjunction' }).format(items);
}
