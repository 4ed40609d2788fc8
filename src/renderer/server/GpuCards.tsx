import { useRef, useState } from 'react';
import type { GpuView } from '../../shared/models';
import { useApi } from '../app/api';
import { useVisiblePoll } from '../app/useVisiblePoll';
import { useTranslation } from 'react-i18next';
import { useErrorLine } from '../i18n/errors';
import { useFormat } from '../i18n/useFormat';
import { Sparkline } from '../app/Sparkline';

const HISTORY = 60;

/** Live utilisation and memory, polled over the open connection about once a second while visible. */
export function GpuCards({ connectionId, initial }: { connectionId: string; initial: GpuView[] | null }) {
  const api = useApi();
  const { t } = useTranslation('server');
  const errorLine = useErrorLine();
  const fmt = useFormat();
  const [gpus, setGpus] = useState<GpuView[] | null>(initial);
  const [error, setError] = useState<string | null>(null);
  const hist = useRef(new Map<string, { util: (number | null)[]; mem: (number | null)[] }>());
  const [, setTick] = useState(0);

  // Hidden window: no asking; visible again: at once (useVisiblePoll).
  useVisiblePoll(connectionId, async (alive) => {
    try {
      const s = await api.invoke('server.gpus', { connectionId });
      if (!alive()) return 'stop';
      for (const g of s.gpus) {
        const h = hist.current.get(g.uuid) ?? { util: [], mem: [] };
        h.util = [...h.util, g.utilizationPct].slice(-HISTORY);
        h.mem = [...h.mem, g.memoryTotalMiB && g.memoryUsedMiB !== null ? (100 * g.memoryUsedMiB) / g.memoryTotalMiB : null].slice(-HISTORY);
        hist.current.set(g.uuid, h);
      }
      setGpus(s.gpus);
      setError(null);
      setTick((t) => t + 1);
    } catch (e) {
      if (alive()) setError(errorLine(e));
    }
    return 'again';
  });

  if (error && !gpus) return <p className="banner error" role="alert">{error}</p>;
  if (!gpus) return <p role="status" className="progress">{t('gpus.asking')}</p>;
  if (gpus.length === 0) return <p>{t('gpus.none')}</p>;
  return (
    <ul className="gpu-cards" aria-label={t('gpus.aria')}>
      {gpus.map((g) => {
        const h = hist.current.get(g.uuid) ?? { util: [], mem: [] };
        return (
          <li key={g.uuid} className="card" data-testid={`gpu-${g.index}`}>
            <h3>{t('gpus.title', { index: g.index, name: g.name })}</h3>
            <p className="muted">{t('gpus.line', { used: g.memoryUsedMiB != null ? fmt.number(g.memoryUsedMiB, 0) : '?', total: g.memoryTotalMiB != null ? fmt.number(g.memoryTotalMiB, 0) : '?', util: g.utilizationPct != null ? fmt.percent(g.utilizationPct / 100) : '?', driver: g.driverVersion })}</p>
            <div className="charts">
              <Sparkline values={h.util} max={100} label={t('gpus.utilChart')} unit=" %" />
              <Sparkline values={h.mem} max={100} label={t('gpus.memChart')} unit=" %" color="var(--accent-2)" />
            </div>
          </li>
        );
      })}
      {error && <li className="banner warn" role="status">{error}</li>}
    </ul>
  );
}
