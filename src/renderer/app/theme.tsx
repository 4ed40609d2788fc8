import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

type Choice = 'system' | 'light' | 'dark';
const KEY = 'gpu-desk.theme';

export function useTheme() {
  const [choice, setChoice] = useState<Choice>(() => (localStorage.getItem(KEY) as Choice) || 'system');
  const [systemDark, setSystemDark] = useState(() => matchMedia('(prefers-color-scheme: dark)').matches);
  useEffect(() => {
    const mq = matchMedia('(prefers-color-scheme: dark)');
    const on = () => setSystemDark(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  const resolved: 'light' | 'dark' = choice === 'system' ? (systemDark ? 'dark' : 'light') : choice;
  useEffect(() => {
    document.documentElement.dataset.theme = resolved;
  }, [resolved]);
  return {
    choice,
    resolved,
    set(c: Choice) {
      localStorage.setItem(KEY, c);
      setChoice(c);
    },
  };
}

export function ThemeSwitch({ theme }: { theme: ReturnType<typeof useTheme> }) {
  const { t } = useTranslation('common');
  return (
    <label className="theme-switch">
      {t('theme.label')}
      <select value={theme.choice} onChange={(e) => theme.set(e.target.value as Choice)} aria-label={t('theme.aria')}>
        <option value="system">{t('theme.system')}</option>
        <option value="light">{t('theme.light')}</option>
        <option value="dark">{t('theme.dark')}</option>
      </select>
    </label>
  );
}
