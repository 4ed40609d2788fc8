import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { GpuFiguresView, ViewerGpuSample } from '../../shared/models';
import { useApi } from '../app/api';
import { useVisiblePoll } from '../app/useVisiblePoll';
import { Sparkline } from '../app/Sparkline';
import { useErrorLine } from '../i18n/errors';
import { useFormat } from '../i18n/useFormat';
import { pickHudGpus } from './hudGpuPick';

const HISTORY = 60;

/**
 * The HUD's GPU panel: the GPU the desktop renders on (`renderGpu`, an nvidia-smi index) in full,
 * else every GPU in one line each. Asked once a second over the viewer's own connection (a job's
 * desktop: its node) while the HUD shows and the window is visible (useVisiblePoll); unmounting stops it.
 */
export function HudGpus({ viewerId, renderGpu }: { viewerId: string; renderGpu?: number }) {
  const api = useApi();
  const { t } = useTranslation('viewer');
  const errorLine = useErrorLine();
  const fmt = useFormat();
  const [sample, setSample] = useState<ViewerGpuSample | null>(null);
  const [error, setError] = useState<string | null>(null);
  const hist = useRef(new Map<number, (number | null)[]>());

  // A new viewer starts a new history, and asks again even if the last machine had no figures.
  useEffect(() => {
    hist.current = new Map();
  }, [viewerId]);
  useVisiblePoll(viewerId, async (alive) => {
    try {
      const s = await api.invoke('viewer.gpus', { viewerId });
      if (!alive()) return 'stop';
      for (const g of s.gpus) hist.current.set(g.index, [...(hist.current.get(g.index) ?? []), g.utilizationPct].slice(-HISTORY));
      setSample(s);
      setError(null);
      // The machine has no NVIDIA GPU figures: said once, not asked again every second.
      return s.available ? 'again' : 'stop';
    } catch (e) {
      if (alive()) setError(errorLine(e));
      return 'again';
    }
  });

  const pct = (v: number | null) => (v === null ? '—' : fmt.percent(v / 100));
  const mib = (v: number | null) => (v === null ? '?' : fmt.number(v, 0));
  const memory = (g: GpuFiguresView) => t('hudGpu.memoryValue', { used: mib(g.memoryUsedMiB), total: mib(g.memoryTotalMiB) });

  if (!sample) return error ? <p className="hud-gpu muted" data-testid="hud-gpu-error">{error}</p> : null;
  if (!sample.available) {
    return <p className="hud-gpu muted" data-testid="hud-gpu-none">{sample.why === 'no-link' ? t('hudGpu.noLink') : t('hudGpu.none')}</p>;
  }
  // The last figures stay, with why they are not new (a dropped link comes back; the next poll says).
  const stale = error ? <p className="muted" data-testid="hud-gpu-error">{error}</p> : null;
  const pick = pickHudGpus(sample.gpus, sample.renderGpu ?? renderGpu);
  if (pick.kind === 'one') {
    const g = pick.gpu;
    return (
      <section className="hud-gpu" aria-label={t('hudGpu.aria')} data-testid="hud-gpu" data-index={g.index}>
        <h3 className="hud-gpu-title">{t('hudGpu.title', { index: g.index, name: g.name })}</h3>
        <dl data-testid={`hud-gpu-${g.index}`} {...dataOf(g)}>
          <dt>{t('hudGpu.util')}</dt><dd data-testid="hud-gpu-util">{pct(g.utilizationPct)}</dd>
          <dt>{t('hudGpu.memory')}</dt><dd data-testid="hud-gpu-memory">{memory(g)}</dd>
          {g.temperatureC !== null && <><dt>{t('hudGpu.temperature')}</dt><dd data-testid="hud-gpu-temp">{t('hudGpu.temperatureValue', { c: fmt.number(g.temperatureC, 0) })}</dd></>}
          {g.powerDrawW !== null && <><dt>{t('hudGpu.power')}</dt><dd data-testid="hud-gpu-power">{g.powerLimitW !== null ? t('hudGpu.powerValue', { draw: fmt.number(g.powerDrawW, 0), limit: fmt.number(g.powerLimitW, 0) }) : t('hudGpu.powerDraw', { draw: fmt.number(g.powerDrawW, 0) })}</dd></>}
          {(g.encoderPct !== null || g.decoderPct !== null) && <><dt>{t('hudGpu.codec')}</dt><dd data-testid="hud-gpu-codec">{t('hudGpu.codecValue', { enc: pct(g.encoderPct), dec: pct(g.decoderPct) })}</dd></>}
        </dl>
        <Sparkline values={hist.current.get(g.index) ?? []} max={100} label={t('hudGpu.utilChart')} unit=" %" width={200} height={28} color="var(--accent-2)" />
        {stale}
      </section>
    );
  }
  const { lines, more, missing } = pick;
  return (
    <section className="hud-gpu" aria-label={t('hudGpu.aria')} data-testid="hud-gpu">
      {missing !== null && <p className="muted" data-testid="hud-gpu-missing">{t('hudGpu.missing', { index: missing })}</p>}
      {sample.gpus.length === 0 && <p className="muted">{t('hudGpu.noGpus')}</p>}
      <ul className="hud-gpu-lines">
        {lines.map((g) => (
          <li key={g.index} data-testid={`hud-gpu-${g.index}`} {...dataOf(g)} title={g.name}>
            {t('hudGpu.line', { index: g.index, util: pct(g.utilizationPct), memory: memory(g) })}
          </li>
        ))}
        {more > 0 && <li className="muted" data-testid="hud-gpu-more">{t('hudGpu.more', { count: more })}</li>}
      </ul>
      {stale}
    </section>
  );
}

/** The raw figures beside the words, so a test compares them with what nvidia-smi printed. */
function dataOf(g: GpuFiguresView): Record<string, string> {
  const v = (x: number | null) => (x === null ? '' : String(x));
  return {
    'data-name': g.name, 'data-util': v(g.utilizationPct), 'data-mem-used': v(g.memoryUsedMiB), 'data-mem-total': v(g.memoryTotalMiB),
    'data-temp': v(g.temperatureC), 'data-power': v(g.powerDrawW), 'data-power-limit': v(g.powerLimitW), 'data-enc': v(g.encoderPct), 'data-dec': v(g.decoderPct),
  };
}
