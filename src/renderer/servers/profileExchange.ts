import { useCallback, useMemo, useState } from 'react';
import type { GpuDeskApi } from '../../shared/contract';
import { errorLine } from '../app/api';
import { useTranslation } from 'react-i18next';


export interface ExchangeMessage {
  kind: 'ok' | 'error';
  text: string;
  /** Extra lines (skipped servers, warnings). */
  details: string[];
}

export interface ProfileExchange {
  busy: boolean;
  message: ExchangeMessage | null;
  exportAll(): Promise<void>;
  importFile(): Promise<void>;
  dismiss(): void;
}

/**
 * Servers export/import: the file is chosen in the main process (native dialog); a bad file is one
 * error line and changes nothing (core validates the whole file before writing anything).
 */
export function useProfileExchange(api: GpuDeskApi, reloadProfiles: () => Promise<void>): ProfileExchange {
  const { t } = useTranslation('keys');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<ExchangeMessage | null>(null);
  const run = useCallback(async (fn: () => Promise<ExchangeMessage | null>) => {
    setBusy(true);
    try {
      const m = await fn();
      if (m) setMessage(m);
    } catch (e) {
      setMessage({ kind: 'error', text: errorLine(e), details: [] });
    } finally {
      setBusy(false);
    }
  }, []);
  const exportAll = useCallback(() => run(async () => {
    const r = await api.invoke('profiles.exportFile', {});
    return r && { kind: 'ok', text: t('exchange.exported', { count: r.count, file: r.file }), details: [] };
  }), [api, run, t]);
  const importFile = useCallback(() => run(async () => {
    const r = await api.invoke('profiles.importFile', { replace: false });
    if (!r) return null;
    await reloadProfiles();
    return { kind: 'ok', text: t('exchange.imported', { file: r.file, added: r.added.length, replaced: r.replaced.length, skipped: r.skipped.length }), details: [...r.skipped, ...r.warnings] };
  }), [api, run, reloadProfiles, t]);
  const dismiss = useCallback(() => setMessage(null), []);
  return useMemo(() => ({ busy, message, exportAll, importFile, dismiss }), [busy, message, exportAll, importFile, dismiss]);
}
