import { describe, expect, it } from 'vitest';
import { buildSetupPlan } from '../../../src/core/remote/setupPlan';
import { rootStillNeeded, stepReasons, STEP_REASON_KEYS } from '../../../src/core/remote/planReview';
import { en, zhCN } from '../../../src/renderer/i18n/resources';
import type { StepStatus } from '../../../src/core/remote/types';
import { configured, freshGpu, fx, report } from './reports';

const statusOf = (ids: string[], done: string[]): Record<string, StepStatus> => Object.fromEntries(ids.map((id) => [id, done.includes(id) ? 'done' : 'pending']));

describe('plan review: why each step is skipped or runs', () => {
  it('a step whose check passes says it will be skipped; one that fails says it is needed', () => {
    const r = report(configured());
    const plan = buildSetupPlan(r);
    const ids = plan.steps.map((s) => s.id);
    const reasons = stepReasons(plan, r, statusOf(ids, ['virtualgl', 'vnc-server']));
    expect(reasons.virtualgl).toMatchObject({ key: 'done', text: 'Already done on the server: will be skipped.' });
    expect(reasons['vnc-server'].key).toBe('done');
    expect(reasons['gl-libraries']).toMatchObject({ key: 'needed', text: 'Not done yet: its check fails on the server.' });
    // Every step has one.
    expect(Object.keys(reasons).sort()).toEqual([...ids].sort());
  });

  it('VirtualGL installed without the EGL back end: the step says which version is there and which it installs', () => {
    const r = report({ ...configured(), vgl: 'bin /opt/VirtualGL/bin\nversion 2.6.5\ngroup' });
    const plan = buildSetupPlan(r);
    const reasons = stepReasons(plan, r, statusOf(plan.steps.map((s) => s.id), []));
    expect(reasons.virtualgl).toMatchObject({ key: 'virtualglNoEgl', params: { installed: '2.6.5', version: '3.1.4' } });
    expect(reasons.virtualgl.text).toBe('VirtualGL 2.6.5 is installed, but without the EGL back end (eglinfo, VirtualGL 3.0 or later): the plan installs 3.1.4.');
  });

  it('VirtualGL and TurboVNC installed outside the prefix gpu-desk runs them from: the step names both places', () => {
    const r = report({ ...configured(), vgl: 'bin /usr/local/VirtualGL/bin\neglinfo\nversion 3.1.2\ngroup', turbo: 'bin /usr/local/TurboVNC/bin\n' + fx('turbovnc-xvnc-version.txt') });
    const plan = buildSetupPlan(r);
    const reasons = stepReasons(plan, r, statusOf(plan.steps.map((s) => s.id), []));
    expect(reasons.virtualgl).toMatchObject({ key: 'virtualglElsewhere', params: { installed: '3.1.2', version: '3.1.4', dir: '/usr/local/VirtualGL', target: '/opt/VirtualGL' } });
    expect(reasons.virtualgl.text).toContain('installed in /usr/local/VirtualGL, not in /opt/VirtualGL');
    expect(reasons['vnc-server']).toMatchObject({ key: 'turbovncElsewhere', params: { dir: '/usr/local/TurboVNC', target: '/opt/TurboVNC', version: '3.3' } });
  });

  it('a sudo password is asked only while a step that needs root is still to do', () => {
    const plan = buildSetupPlan(report(freshGpu('os-release-debian-12.txt')));
    const ids = plan.steps.map((s) => s.id);
    expect(rootStillNeeded(plan, statusOf(ids, []))).toBe(true);
    expect(rootStillNeeded(plan, statusOf(ids, ids))).toBe(false);
    const user = buildSetupPlan(report(freshGpu('os-release-debian-12.txt')), { userInstall: true });
    expect(rootStillNeeded(user, statusOf(user.steps.map((s) => s.id), []))).toBe(false);
  });
});

describe('plan review reasons in the app', () => {
  it('both catalogues have each reason core sends, with the values it names', () => {
    for (const cat of [en.setup.reasons, zhCN.setup.reasons]) {
      expect(Object.keys(cat).sort()).toEqual([...STEP_REASON_KEYS].sort());
    }
    const r = report({ ...configured(), vgl: 'bin /usr/local/VirtualGL/bin\neglinfo\nversion 3.1.2\ngroup', turbo: 'bin /usr/local/TurboVNC/bin\n' + fx('turbovnc-xvnc-version.txt') });
    const plan = buildSetupPlan(r);
    for (const reason of Object.values(stepReasons(plan, r, statusOf(plan.steps.map((s) => s.id), [])))) {
      for (const cat of [en.setup.reasons, zhCN.setup.reasons]) {
        const text = cat[reason.key as keyof typeof cat];
        for (const name of text.match(/\{\{(\w+)\}\}/g) ?? []) expect(reason.params).toHaveProperty(name.slice(2, -2));
      }
    }
  });
});
