import { useEffect, useState } from 'react';

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
  return (
    <label className="theme-switch">
      Theme
      <select value={theme.choice} onChange={(e) => theme.set(e.target.value as Choice)} aria-label="Colour theme">
        <option value="system">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}
