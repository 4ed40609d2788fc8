import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { SetupPlanView, SetupStepView } from '../../shared/models';
import en from './locales/en/plan';

// The keys come from core at run time (checked against the catalogue before use), each with its own
// values: typed t() cannot check one params object against a union of keys.
type LooseT = (key: string, values?: Record<string, string>) => string;

export interface PlanText {
  step(s: SetupStepView): { title: string; why: string };
  notes(p: SetupPlanView): string[];
}

/**
 * A set-up step's title and why, and a plan's notes, through the `plan` catalogue by the keys core
 * sends. A step or note whose keys this build does not know (a newer core) keeps core's English text.
 */
export function planText(t: LooseT, language: string | undefined): PlanText {
  // Chinese sentences follow one another with no space between them.
  const sep = language?.startsWith('zh') ? '' : ' ';
  return {
    step(s) {
      const k = s.text;
      const v = k?.verify;
      if (!k || !(k.key in en.steps) || (v && !(v.source.key in en.verify))) return { title: s.title, why: s.why };
      const why = [t(`plan:steps.${k.key}.why`, k.params)];
      if (v) why.push(t(`plan:verify.${v.source.key}`, v.source.params), t(v.allowUnverified ? 'plan:unverified.allowed' : 'plan:unverified.stops'));
      return { title: t(`plan:steps.${k.key}.title`, k.params), why: why.join(sep) };
    },
    notes(p) {
      return p.notes.map((n, i) => {
        const k = p.noteTexts?.[i];
        return k && k.key in en.notes ? t(`plan:notes.${k.key}`, k.params) : n;
      });
    },
  };
}

export function usePlanText(): PlanText {
  const { t, i18n } = useTranslation('plan');
  return useMemo(() => planText(t as unknown as LooseT, i18n.resolvedLanguage), [t, i18n.resolvedLanguage]);
}
