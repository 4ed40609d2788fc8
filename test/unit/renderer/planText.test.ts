import { describe, expect, it } from 'vitest';
import { buildSetupPlan, PLAN_NOTE_KEYS, PLAN_STEP_KEYS, PLAN_VERIFY_KEYS, type PlanOptions } from '../../../src/core/remote/setupPlan';
import type { ServerReport, SetupPlan } from '../../../src/core/remote/types';
import { buildUserUninstallPlan } from '../../../src/core/remote/userInstall';
import { createI18n } from '../../../src/renderer/i18n';
import { planText } from '../../../src/renderer/i18n/planText';
import { en, zhCN } from '../../../src/renderer/i18n/resources';
import { bedLike, configured, freshGpu, glxOnlyGpu, report } from '../remote/reports';

/** Every kind of plan core makes: each step key, note key and way of checking a download at least once. */
function plans(): SetupPlan[] {
  const oldDriverWithCard = (): ServerReport => {
    const r = report(glxOnlyGpu('os-release-ubuntu-22.04.txt'));
    return { ...r, nvidia: { ...r.nvidia, driverVersion: '418.226.00' }, dri: [{ path: '/dev/dri/card1', kind: 'card', group: null, accessible: false }] };
  };
  const noBusId = (): ServerReport => {
    const r = report(glxOnlyGpu('os-release-rocky-9.txt'));
    return { ...r, gpus: r.gpus.map((g) => ({ ...g, pciBusId: null })) };
  };
  const cases: [ServerReport, PlanOptions][] = [
    [report(freshGpu('os-release-ubuntu-22.04.txt')), {}],
    [report(glxOnlyGpu('os-release-debian-12.txt')), { windowManager: 'openbox' }],
    [oldDriverWithCard(), { packagesFrom: 'https://mirror.example.org/gpu', allowUnverified: true }],
    [report(freshGpu('os-release-debian-12.txt')), { packagesFrom: 'http://mirror.example.org/gpu', allowUnverified: true }],
    [noBusId(), {}],
    [report(bedLike()), { allowUnverified: true }],
    [report(configured()), {}],
    // No xclip on the server: the image copy and paste step.
    [report({ ...freshGpu('os-release-rocky-9.txt'), clip: '' }), {}],
    // The no-root install into the home: Debian with Openbox brought along, RHEL bare, a bare desktop by choice.
    [report(freshGpu('os-release-debian-12.txt')), { userInstall: true }],
    [report(freshGpu('os-release-rocky-9.txt')), { userInstall: true, packagesFrom: 'https://mirror.example.org/gpu' }],
    [report(bedLike()), { userInstall: true, windowManager: 'none' }],
  ];
  return [...cases.map(([r, o]) => buildSetupPlan(r, o)), buildUserUninstallPlan(report(bedLike()))];
}

const seen = (all: SetupPlan[]) => ({
  steps: new Set(all.flatMap((p) => p.steps.map((s) => s.text?.key))),
  notes: new Set(all.flatMap((p) => (p.noteTexts ?? []).map((n) => n.key))),
  verify: new Set(all.flatMap((p) => p.steps.map((s) => s.text?.verify?.source.key).filter(Boolean))),
});

describe('set-up plan text in the app’s languages', () => {
  it('every step, note and check key core names has its text in en and zh-CN, and the catalogues hold no others', () => {
    for (const cat of [en.plan, zhCN.plan]) {
      expect(Object.keys(cat.steps).sort()).toEqual([...PLAN_STEP_KEYS].sort());
      expect(Object.keys(cat.notes).sort()).toEqual([...PLAN_NOTE_KEYS].sort());
      expect(Object.keys(cat.verify).sort()).toEqual([...PLAN_VERIFY_KEYS].sort());
    }
    // The lists are the ones core really uses: the plans below reach every key.
    const s = seen(plans());
    expect([...s.steps].sort()).toEqual([...PLAN_STEP_KEYS].sort());
    expect([...s.notes].sort()).toEqual([...PLAN_NOTE_KEYS].sort());
    expect([...s.verify].sort()).toEqual(['github', 'mirror', 'mirrorHttp']);
  });

  it('in English the catalogue says exactly what core says (the CLI’s text), step by step and note by note', async () => {
    const i18n = createI18n('en');
    const text = planText(i18n.t.bind(i18n) as never, 'en');
    for (const p of plans()) {
      for (const s of p.steps) expect(text.step(s), s.id).toEqual({ title: s.title.replace(/'/g, '’'), why: s.why.replace(/'/g, '’') });
      expect(text.notes(p)).toEqual(p.notes.map((n) => n.replace(/'/g, '’')));
    }
  });

  it('in Chinese every step title, why and note is translated, with its values filled in', async () => {
    const i18n = createI18n('zh-CN');
    const text = planText(i18n.t.bind(i18n) as never, 'zh-CN');
    for (const p of plans()) {
      for (const s of p.steps) {
        const { title, why } = text.step(s);
        expect(title).not.toBe(s.title);
        // Whether any English is left in the catalogue itself is i18n.test.ts's check, for every namespace.
        expect(title, s.id).toMatch(/[\u4e00-\u9fff]/);
        expect(why, s.id).toMatch(/[\u4e00-\u9fff]/);
        expect(`${title}${why}`).not.toMatch(/\{\{/);
      }
      for (const n of text.notes(p)) expect(n).toMatch(/[\u4e00-\u9fff]/);
    }
    const vgl = plans()[2].steps.find((s) => s.id === 'virtualgl')!;
    expect(text.step(vgl).title).toBe('安装 VirtualGL 3.1.4');
    expect(text.step(vgl).why).toContain('https://mirror.example.org/gpu/SHA256SUMS');
    expect(text.step(vgl).why).toContain('未校验的情况下安装');
  });

  it('a step whose key this build does not know keeps core’s English', () => {
    const i18n = createI18n('zh-CN');
    const text = planText(i18n.t.bind(i18n) as never, 'zh-CN');
    const s = { ...plans()[0].steps[0], text: { key: 'fromANewerCore', params: {} } };
    expect(text.step(s)).toEqual({ title: s.title, why: s.why });
  });
});
