/**
 * Video mode's part of the probe: ffmpeg's real error output (test/fixtures/remote/ffmpeg-*.txt, from
 * Debian 12's ffmpeg 5.1: NVENC without a driver, NVENC with the driver's CUDA library but not its
 * encode library, VA-API without a VA driver, an encoder the build lacks) → the line that names the
 * cause; the probe's "video" section → ServerReport.video; and the findings that follow from it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bestVideoEncoder, cleanErrorLine, ffmpegErrorLine, parseVideoSection, splitSections } from '../../../src/core/remote/parsers';
import { buildProbeCommand, VIDEO_TEST_SECONDS } from '../../../src/core/remote/probeScript';
import type { Finding, FindingCode, ServerReport } from '../../../src/core/remote/types';
import { amdGpu, bedLike, configured, freshGpu, fx, report, videoSection, type Scenario } from './reports';

const find = (f: Finding[], code: FindingCode) => f.find((x) => x.code === code);
const videoCodes = (r: ServerReport) =>
  r.findings.map((f) => f.code).filter((c) => ['NO_FFMPEG', 'NVENC_UNAVAILABLE', 'VAAPI_UNAVAILABLE', 'NO_RENDER_NODE', 'VIDEO_CPU_ONLY', 'NO_VIDEO_ENCODER'].includes(c)).sort();

describe("ffmpeg's error output → the line that says why", () => {
  it('NVENC without an NVIDIA driver: the library that cannot be loaded, not the closing "Error initializing output stream" line', () => {
    expect(ffmpegErrorLine(fx('ffmpeg-nvenc-no-libcuda.txt'))).toBe('Cannot load libcuda.so.1');
  });

  it("NVENC with the driver's CUDA library but no libnvidia-encode: the missing library, not the driver-version hint ffmpeg adds after it", () => {
    const out = fx('ffmpeg-nvenc-no-libnvidia-encode.txt');
    expect(out).toContain('The minimum required Nvidia driver for nvenc is');
    expect(ffmpegErrorLine(out)).toBe('Cannot load libnvidia-encode.so.1');
  });

  it('VA-API without a VA driver for the node: the hardware context\'s own words, not "Error parsing global options"', () => {
    expect(ffmpegErrorLine(fx('ffmpeg-vaapi-no-va-display.txt'))).toBe('No VA display found for device /dev/dri/renderD128');
  });

  it('an encoder the build lacks; only generic lines: the last one; no output: null', () => {
    expect(ffmpegErrorLine(fx('ffmpeg-unknown-encoder.txt'))).toBe("Unknown encoder 'h264_nosuch'");
    expect(ffmpegErrorLine('Error parsing global options: Invalid argument\n')).toBe('Error parsing global options: Invalid argument');
    expect(ffmpegErrorLine('\n\n')).toBeNull();
  });

  it('control characters are escaped and a long line is cut to 200 characters', () => {
    expect(cleanErrorLine('\u001b[31mred\u001b[0m\tx')).toBe('\\x1b[31mred\\x1b[0m\\x09x');
    const long = cleanErrorLine(`Cannot load ${'x'.repeat(500)}`);
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('the probe\'s "video" section', () => {
  it("the bed's real section (Debian 12's ffmpeg, no NVIDIA driver, no render node): only libx264 works, each other encoder with its reason", () => {
    const v = parseVideoSection(fx('probe-video-debian-12-x264.txt'), VIDEO_TEST_SECONDS);
    expect(v.ffmpeg).toEqual({ path: '/usr/bin/ffmpeg', version: expect.stringMatching(/^ffmpeg version 5\.1\.\S+ Copyright/) });
    expect(v.encoders).toEqual([
      { name: 'h264_nvenc', works: false, error: 'Cannot load libcuda.so.1' },
      { name: 'h264_vaapi', works: false, error: 'no /dev/dri/renderD* device' },
      { name: 'libx264', works: true, error: null },
    ]);
    expect(v.best).toBe('libx264');
    expect(v.renderNode).toBeNull();
    expect(v.pciGpus).toEqual([]);
  });

  it('best is the first that works in the order NVENC, VA-API, x264, whatever order the runs come in', () => {
    const v = parseVideoSection(videoSection({ libx264: ['0'], h264_vaapi: ['0'], h264_nvenc: ['1', 'Cannot load libcuda.so.1'] }, 'render /dev/dri/renderD128 i915\npci 0x8086'), 5);
    expect(v.encoders.map((e) => e.name)).toEqual(['h264_nvenc', 'h264_vaapi', 'libx264']);
    expect(v.best).toBe('h264_vaapi');
    expect(v.renderNode).toEqual({ path: '/dev/dri/renderD128', driver: 'i915' });
    expect(v.pciGpus).toEqual(['intel']);
    expect(bestVideoEncoder({ video: v })).toBe('h264_vaapi');
    expect(bestVideoEncoder({ video: { encoders: [{ name: 'libx264', works: true }, { name: 'h264_nvenc', works: true }] } })).toBe('h264_nvenc');
  });

  it('no ffmpeg: ffmpeg null, every encoder not working for that reason, best null', () => {
    const v = parseVideoSection('render /dev/dri/renderD129\npci 0x1002\npci 0x1a03', 5);
    expect(v.ffmpeg).toBeNull();
    expect(v.encoders.every((e) => !e.works && e.error === 'ffmpeg is not installed')).toBe(true);
    expect(v.best).toBeNull();
    // A node whose driver could not be read, and only the GPU makers among the display devices (0x1a03: a BMC's ASPEED).
    expect(v.renderNode).toEqual({ path: '/dev/dri/renderD129', driver: null });
    expect(v.pciGpus).toEqual(['amd']);
  });

  it('a test encode cut off by the timeout, one that never reported, one with no output', () => {
    const v = parseVideoSection(videoSection({ h264_nvenc: ['124'], libx264: ['1'] }), 5);
    expect(v.encoders).toEqual([
      { name: 'h264_nvenc', works: false, error: 'the test encode did not finish in 5 s' },
      { name: 'h264_vaapi', works: false, error: 'the test encode did not run' },
      { name: 'libx264', works: false, error: 'ffmpeg exited with status 1' },
    ]);
    expect(v.best).toBeNull();
  });

  it("a hostile server's ffmpeg output is data: a marker inside it neither ends the section nor reports success", () => {
    const text = `@@GD:video\n${videoSection({ libx264: ['1', '@@GD:end\n@@enc libx264 0\nreal\u0007error'] })}\n@@GD:end\n`;
    expect(parseVideoSection(splitSections(text).video, 5).encoders[2]).toEqual({ name: 'libx264', works: false, error: 'real\\x07error' });
  });
});

/** The probe script itself, run here by sh with a stand-in ffmpeg first on PATH. */
describe('the probe script\'s video part', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-video-probe-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  // Answers -version; "fails" NVENC with a line that looks like a section marker; encodes with x264.
  fs.writeFileSync(path.join(dir, 'ffmpeg'), [
    '#!/bin/sh',
    'case " $* " in',
    '  *" -version "*) echo "ffmpeg version 9.9-stand-in"; echo "second line" ;;',
    '  *" h264_nvenc "*) echo "@@GD:end"; echo "@@enc h264_nvenc 0"; echo "[h264_nvenc @ 0x1] Cannot load libnvidia-encode.so.1" >&2; exit 1 ;;',
    '  *" libx264 "*) exit 0 ;;',
    '  *) echo "unexpected: $*" >&2; exit 2 ;;',
    'esac',
  ].join('\n'), { mode: 0o755 });
  const probe = (env: Record<string, string> = {}) =>
    splitSections(execFileSync('/bin/sh', ['-c', buildProbeCommand('/nonexistent')], { encoding: 'utf8', env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, ...env } }));

  it('tries each encoder, keeps their output apart from the markers, and reports the render node only where one is', () => {
    const s = probe();
    expect(s.end).toBeDefined();
    const v = parseVideoSection(s.video, VIDEO_TEST_SECONDS);
    expect(v.ffmpeg).toEqual({ path: path.join(dir, 'ffmpeg'), version: 'ffmpeg version 9.9-stand-in' });
    const vaapi = fs.existsSync('/dev/dri') && fs.readdirSync('/dev/dri').some((n) => n.startsWith('renderD'));
    expect(v.encoders).toEqual([
      { name: 'h264_nvenc', works: false, error: 'Cannot load libnvidia-encode.so.1' },
      // The stand-in refuses anything but NVENC and x264: a node here gets it asked for VA-API.
      vaapi ? { name: 'h264_vaapi', works: false, error: expect.stringMatching(/^unexpected: .*-vaapi_device \/dev\/dri\/renderD\d+ .*h264_vaapi/) } : { name: 'h264_vaapi', works: false, error: 'no /dev/dri/renderD* device' },
      { name: 'libx264', works: true, error: null },
    ]);
    expect(v.best).toBe('libx264');
  });

  it('without a private temporary directory the encodes run one after the other, with the same answer', () => {
    const s = probe({ TMPDIR: path.join(dir, 'no-such-dir') });
    const v = parseVideoSection(s.video, VIDEO_TEST_SECONDS);
    expect(v.encoders.map((e) => [e.name, e.works])).toEqual([['h264_nvenc', false], ['h264_vaapi', false], ['libx264', true]]);
    expect(v.encoders[0].error).toBe('Cannot load libnvidia-encode.so.1');
  });
});

describe('video findings', () => {
  const withVideo = (s: Scenario, video: string): ServerReport => report({ ...s, video });
  const nvencFailing = (os: string, error: string) => withVideo(freshGpu(os), videoSection({ h264_nvenc: ['1', error], h264_vaapi: ['1', fx('ffmpeg-vaapi-no-va-display.txt')], libx264: ['0'] }, 'render /dev/dri/renderD128 nvidia\npci 0x10de'));

  it('no ffmpeg: a warning with the install command for the distribution, RHEL naming EPEL and RPM Fusion; never an error', () => {
    const deb = find(report(freshGpu('os-release-ubuntu-22.04.txt')).findings, 'NO_FFMPEG')!;
    expect(deb).toMatchObject({ severity: 'warning', planStep: 'ffmpeg' });
    expect(deb.message).toMatch(/^Video mode needs ffmpeg/);
    expect(deb.fix).toContain('apt-get install --no-install-recommends ffmpeg');
    const rhel = find(report(freshGpu('os-release-rocky-9.txt')).findings, 'NO_FFMPEG')!;
    expect(rhel.fix).toMatch(/EPEL and RPM Fusion/);
    expect(rhel.fix).toContain('dnf install ffmpeg');
    const other = find(report({ ...freshGpu('os-release-fedora-40.txt') }).findings, 'NO_FFMPEG')!;
    expect(other.planStep).toBeUndefined();
    // Nothing else about video is said without ffmpeg.
    expect(videoCodes(report(freshGpu('os-release-ubuntu-22.04.txt')))).toEqual(['NO_FFMPEG']);
  });

  it("NVIDIA driver loaded, NVENC's encode library missing (Ubuntu): names libnvidia-encode-<driver major>", () => {
    const r = nvencFailing('os-release-ubuntu-22.04.txt', fx('ffmpeg-nvenc-no-libnvidia-encode.txt'));
    const f = find(r.findings, 'NVENC_UNAVAILABLE')!;
    expect(f.severity).toBe('info');
    expect(f.message).toContain("cannot load the driver's NVENC library (Cannot load libnvidia-encode.so.1)");
    expect(f.fix).toContain('sudo apt install libnvidia-encode-535');
    expect(f.text).toMatchObject({ message: 'nvencNoEncodeLib', fix: 'nvencLibraryUbuntu', params: { command: 'sudo apt install libnvidia-encode-535', library: 'libnvidia-encode' } });
    // The render node is NVIDIA's own: VA-API has nothing to say there. Video falls back to x264.
    expect(videoCodes(r)).toEqual(['NVENC_UNAVAILABLE', 'VIDEO_CPU_ONLY']);
  });

  it('the same on Debian 12 and RHEL: their package names', () => {
    expect(find(nvencFailing('os-release-debian-12.txt', fx('ffmpeg-nvenc-no-libnvidia-encode.txt')).findings, 'NVENC_UNAVAILABLE')!.fix).toContain('sudo apt install libnvidia-encode1');
    expect(find(nvencFailing('os-release-rocky-8.txt', fx('ffmpeg-nvenc-no-libnvidia-encode.txt')).findings, 'NVENC_UNAVAILABLE')!.fix).toContain('sudo dnf install nvidia-driver-cuda-libs');
    const cuda = find(nvencFailing('os-release-ubuntu-24.04.txt', fx('ffmpeg-nvenc-no-libcuda.txt')).findings, 'NVENC_UNAVAILABLE')!;
    expect(cuda.message).toContain("driver's CUDA library (Cannot load libcuda.so.1)");
    expect(cuda.fix).toContain('libnvidia-compute-535');
  });

  it('a GPU with no NVENC (A100-class), a driver too old for this ffmpeg, a build without NVENC, anything else: each its own reason', () => {
    const text = (error: string) => find(nvencFailing('os-release-ubuntu-22.04.txt', error).findings, 'NVENC_UNAVAILABLE')!.text!;
    expect(text('[h264_nvenc @ 0x55d0] OpenEncodeSessionEx failed: unsupported device (2): (no details)')).toMatchObject({ message: 'nvencNoHardware', fix: 'nvencNone' });
    expect(text('[h264_nvenc @ 0x55d0] No capable devices found')).toMatchObject({ message: 'nvencNoHardware' });
    expect(text('[h264_nvenc @ 0x55d0] The minimum required Nvidia driver for nvenc is 520.56.06 or newer')).toMatchObject({ message: 'nvencOldDriver', fix: 'nvencNewerDriver' });
    expect(text(fx('ffmpeg-unknown-encoder.txt').replace('h264_nosuch', 'h264_nvenc'))).toMatchObject({ message: 'nvencNotBuilt', fix: 'nvencBuild' });
    expect(text('[h264_nvenc @ 0x55d0] OpenEncodeSessionEx failed: out of memory (10): (no details)')).toMatchObject({ message: 'nvencFailed', params: { error: 'OpenEncodeSessionEx failed: out of memory (10): (no details)' } });
  });

  it('no NVIDIA driver: a failing NVENC is no finding (the bed: only "encoded on the CPU")', () => {
    const r = report(bedLike());
    expect(videoCodes(r)).toEqual(['VIDEO_CPU_ONLY']);
    const f = find(r.findings, 'VIDEO_CPU_ONLY')!;
    expect(f.severity).toBe('info');
    expect(f.message).toMatch(/^Video is encoded on the CPU \(x264\)/);
  });

  it('an Intel or AMD render node where VA-API fails: info with the reason; one the account cannot open: the group to join', () => {
    const amd = (dri: string) => report({ ...amdGpu(), dri, video: videoSection({ h264_nvenc: ['1', fx('ffmpeg-nvenc-no-libcuda.txt')], h264_vaapi: ['1', fx('ffmpeg-vaapi-no-va-display.txt')], libx264: ['0'] }, 'render /dev/dri/renderD128 amdgpu\npci 0x1002') });
    const f = find(amd('/dev/dri/card0 rw video\n/dev/dri/renderD128 rw render').findings, 'VAAPI_UNAVAILABLE')!;
    expect(f.severity).toBe('info');
    expect(f.message).toBe("The GPU's video encoder (VA-API) on /dev/dri/renderD128 (amdgpu) failed its test encode: No VA display found for device /dev/dri/renderD128.");
    expect(f.fix).toContain('mesa-va-drivers');
    const locked = find(amd('/dev/dri/card0 rw video\n/dev/dri/renderD128 no render').findings, 'VAAPI_UNAVAILABLE')!;
    expect(locked.text).toMatchObject({ message: 'vaapiNoAccess', fix: 'renderGroup' });
    expect(locked.fix).toBe('Run `sudo usermod -aG render alice`, then log in again');
  });

  it('an Intel or AMD GPU on PCI but no render node (a container without /dev/dri): info; a BMC\'s VGA device is no GPU', () => {
    const r = withVideo(bedLike(), `${fx('probe-video-debian-12-x264.txt')}\npci 0x8086\npci 0x1a03`);
    const f = find(r.findings, 'NO_RENDER_NODE')!;
    expect(f.severity).toBe('info');
    expect(f.message).toMatch(/^The server has an Intel GPU but no \/dev\/dri\/renderD\* device/);
    expect(f.fix).toContain('--device /dev/dri');
    expect(videoCodes(withVideo(bedLike(), `${fx('probe-video-debian-12-x264.txt')}\npci 0x1a03`))).toEqual(['VIDEO_CPU_ONLY']);
  });

  it('ffmpeg present but no encoder works: a warning naming x264\'s error; never an error', () => {
    const r = withVideo(bedLike(), videoSection({ h264_nvenc: ['1', fx('ffmpeg-nvenc-no-libcuda.txt')], h264_vaapi: ['skip'], libx264: ['1', "Unknown encoder 'libx264'"] }));
    const f = find(r.findings, 'NO_VIDEO_ENCODER')!;
    expect(f.severity).toBe('warning');
    expect(f.message).toBe("/usr/bin/ffmpeg is installed, but none of its H.264 encoders could encode a test frame (x264: Unknown encoder 'libx264'), so video mode is not available here.");
    expect(f.fix).toContain('apt-get install --no-install-recommends ffmpeg');
    expect(videoCodes(r)).toEqual(['NO_VIDEO_ENCODER']);
  });

  it('a working GPU encoder: nothing to say (the configured server)', () => {
    expect(videoCodes(report(configured()))).toEqual([]);
    expect(report(configured()).video.best).toBe('h264_nvenc');
  });

  it('every video finding carries catalogue keys the app knows, in both languages', async () => {
    const { en, zhCN } = await import('../../../src/renderer/i18n/resources');
    const all = [
      report(freshGpu('os-release-ubuntu-22.04.txt')),
      nvencFailing('os-release-ubuntu-22.04.txt', fx('ffmpeg-nvenc-no-libnvidia-encode.txt')),
      report(bedLike()),
      withVideo(bedLike(), `${fx('probe-video-debian-12-x264.txt')}\npci 0x8086`),
    ].flatMap((r) => r.findings);
    for (const f of all) {
      for (const cat of [en.findings, zhCN.findings]) {
        expect(cat.message, f.code).toHaveProperty(f.text!.message);
        expect(cat.fix, f.code).toHaveProperty(f.text!.fix);
      }
      expect(f.message).not.toContain('\n');
    }
  });

  it('in English the catalogue says exactly what core says, and in Chinese it is translated with the values filled in', async () => {
    const { createI18n } = await import('../../../src/renderer/i18n');
    // Keys chosen at run time: untyped t, as the app's useFindingText does.
    const untyped = (i: ReturnType<typeof createI18n>) => (key: string, params: Record<string, string>) => (i.t as unknown as (k: string, p: object) => string)(key, params);
    const en = untyped(createI18n('en'));
    const zh = untyped(createI18n('zh-CN'));
    const nv = (error: string, os = 'os-release-ubuntu-22.04.txt') => nvencFailing(os, error);
    const all = [
      report(freshGpu('os-release-ubuntu-22.04.txt')), report(freshGpu('os-release-rocky-9.txt')), report(freshGpu('os-release-fedora-40.txt')),
      nv(fx('ffmpeg-nvenc-no-libnvidia-encode.txt')), nv(fx('ffmpeg-nvenc-no-libnvidia-encode.txt'), 'os-release-debian-12.txt'), nv(fx('ffmpeg-nvenc-no-libcuda.txt'), 'os-release-rocky-8.txt'),
      nv('No capable devices found'), nv('The minimum required Nvidia driver for nvenc is 520.56.06 or newer'), nv("Unknown encoder 'h264_nvenc'"), nv('something else'),
      report({ ...amdGpu(), video: videoSection({ h264_vaapi: ['1', fx('ffmpeg-vaapi-no-va-display.txt')], libx264: ['0'] }, 'render /dev/dri/renderD128 amdgpu') }),
      report({ ...amdGpu(), dri: '/dev/dri/renderD128 no render', video: videoSection({ h264_vaapi: ['1', 'x'], libx264: ['1', 'y'] }, 'render /dev/dri/renderD128') }),
      withVideo(bedLike(), `${fx('probe-video-debian-12-x264.txt')}\npci 0x1002`),
      withVideo(bedLike(), videoSection({ libx264: ['1', 'no'] })),
      withVideo(freshGpu('os-release-rocky-9.txt'), videoSection({ libx264: ['1', 'no'] })),
    ];
    const keys = new Set<string>();
    for (const f of all.flatMap((r) => r.findings).filter((x) => videoCodes({ findings: [x] } as ServerReport).length)) {
      const k = f.text!;
      keys.add(`${k.message}/${k.fix}`);
      // (The catalogue writes ’ where core writes ', and the server's values come in unchanged.)
      expect(en(`findings:message.${k.message}`, k.params).replace(/’/g, "'"), f.code).toBe(f.message);
      expect(en(`findings:fix.${k.fix}`, k.params).replace(/’/g, "'"), f.code).toBe(f.fix);
      const zm = zh(`findings:message.${k.message}`, k.params);
      expect(zm, f.code).toMatch(/[\u4e00-\u9fff]/);
      expect(zm).not.toMatch(/\{\{/);
    }
    expect(keys.size).toBeGreaterThanOrEqual(15);
  });
});
