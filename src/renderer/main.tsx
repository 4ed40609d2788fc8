import './zodJitless';
import { createRoot } from 'react-dom/client';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { resolveLanguage } from '../shared/language';
import { getApi } from './api/client';
import { App } from './app/App';
import { createI18n } from './i18n';
import { systemLocales } from './i18n/language';
import './app/styles.css';

// The browser's language first, so even a failed start speaks it; the saved setting follows.
const i18n = createI18n(resolveLanguage('system', systemLocales(null)));
document.documentElement.lang = i18n.language;
i18n.on('languageChanged', (lng) => {
  document.documentElement.lang = lng;
});

function CannotStart({ message }: { message: string }) {
  const { t } = useTranslation('common');
  return (
    <main className="fatal" role="alert">
      <h1>{t('cannotStart')}</h1>
      <p>{message}</p>
    </main>
  );
}

const root = createRoot(document.getElementById('root')!);
getApi().then(
  async (api) => {
    const s = await api.invoke('settings.get', {}).catch(() => null);
    if (s) await i18n.changeLanguage(resolveLanguage(s.language, systemLocales(s)));
    root.render(<I18nextProvider i18n={i18n}><App api={api} /></I18nextProvider>);
  },
  (e: Error) => root.render(<I18nextProvider i18n={i18n}><CannotStart message={e.message} /></I18nextProvider>),
);
