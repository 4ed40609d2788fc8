import { describe, expect, it } from 'vitest';
import {
  formatBitRate, formatByteRate, formatBytes, formatDate, formatDateTime, formatDuration, formatFps, formatList, formatMs, formatNumber,
  formatPercent, formatRelative,
} from '../../../src/renderer/i18n/format';

// Intl may put a narrow no-break space between number and unit; compare with plain spaces.
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('format.ts', () => {
  it('sizes in decimal units, fewer decimals as they grow', () => {
    expect(plain(formatBytes(0, 'en'))).toBe('0 bytes');
    expect(plain(formatBytes(1, 'en'))).toBe('1 byte');
    expect(plain(formatBytes(999, 'en'))).toBe('999 bytes');
    expect(plain(formatBytes(1234567, 'en'))).toBe('1.23 MB');
    expect(plain(formatBytes(45_600_000_000, 'en'))).toBe('45.6 GB');
    expect(plain(formatBytes(1234567, 'zh-CN'))).toBe('1.23 MB');
    expect(formatBytes(12, 'zh-CN')).toBe('12字节');
  });

  it('rates: bytes per second, megabits per second, frames per second', () => {
    expect(plain(formatByteRate(12_300, 'en'))).toBe('12.3 kB/s');
    expect(plain(formatByteRate(12_300, 'zh-CN'))).toBe('12.3 kB/秒');
    expect(formatByteRate(999, 'en')).toBe('999 B/s');
    expect(formatByteRate(999, 'zh-CN')).toBe('999 B/秒');
    expect(plain(formatBitRate(45_200_000, 'en'))).toBe('45.2 Mb/s');
    expect(plain(formatBitRate(45_200_000, 'zh-CN'))).toBe('45.2 Mb/秒');
    expect(plain(formatBitRate(1_250_000 * 8, 'en'))).toBe('10 Mb/s');
    expect(formatFps(59.94, 'en')).toBe('60 fps');
    expect(formatFps(7.25, 'zh-CN')).toBe('7.3 帧/秒');
    // The HUD keeps one decimal so the figure does not change width every second.
    expect(formatFps(0, 'en', 1)).toBe('0.0 fps');
    expect(formatFps(24, 'zh-CN', 1)).toBe('24.0 帧/秒');
  });

  it('short times and durations as their two largest parts', () => {
    expect(plain(formatMs(12.4, 'en'))).toBe('12 ms');
    expect(plain(formatMs(1500, 'en'))).toBe('1.5 sec');
    expect(formatMs(12.4, 'zh-CN')).toBe('12毫秒');
    const d = (h: number, m: number, s: number) => ((h * 60 + m) * 60 + s) * 1000;
    expect(plain(formatDuration(d(1, 59, 30), 'en'))).toBe('1 hr 59 min');
    expect(plain(formatDuration(d(0, 3, 5), 'en'))).toBe('3 min 5 sec');
    expect(plain(formatDuration(d(2, 0, 7), 'en'))).toBe('2 hr');
    expect(plain(formatDuration(0, 'en'))).toBe('0 sec');
    expect(formatDuration(d(1, 59, 30), 'zh-CN')).toBe('1小时 59分钟');
    expect(formatDuration(d(0, 0, 42), 'zh-CN')).toBe('42秒');
  });

  it('dates, relative times, numbers and lists', () => {
    // Local time zone of the machine: build the date from local parts so the check holds anywhere.
    const at = new Date(2026, 11, 1, 19, 30);
    expect(plain(formatDateTime(at, 'en'))).toBe('Dec 1, 2026, 7:30 PM');
    expect(formatDateTime(at, 'zh-CN')).toBe('2026年12月1日 19:30');
    expect(formatDate(at, 'zh-CN')).toBe('2026年12月1日');
    const now = at.getTime();
    expect(formatRelative(now - 3 * 60_000, 'en', now)).toBe('3 minutes ago');
    expect(formatRelative(now - 3 * 60_000, 'zh-CN', now)).toBe('3分钟前');
    expect(formatRelative(now + 2 * 3600_000, 'zh-CN', now)).toBe('2小时后');
    expect(formatNumber(1234.56, 'en')).toBe('1,234.6');
    expect(formatPercent(0.456, 'zh-CN')).toBe('46%');
    expect(formatList(['Xfce', 'VirtualGL', 'TurboVNC'], 'en')).toBe('Xfce, VirtualGL, and TurboVNC');
    expect(formatList(['Xfce', 'VirtualGL', 'TurboVNC'], 'zh-CN')).toBe('Xfce、VirtualGL和TurboVNC');
  });
});
