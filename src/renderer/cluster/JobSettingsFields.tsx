import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ClusterDefaultsView, ClusterJobSettings } from '../../shared/models';
import type { ProfileInput } from '../../shared/contract';

type JobInput = NonNullable<ProfileInput['job']>;

const lines = (s: string) => s.split('\n').map((l) => l.trim()).filter(Boolean);

/** The job settings' form state, read from a saved profile and built back into the contract's shape. */
export function useJobSettings(saved: ClusterJobSettings | undefined) {
  const [v, setV] = useState({
    partition: saved?.partition ?? '',
    account: saved?.account ?? '',
    qos: saved?.qos ?? '',
    time: saved?.time ?? '',
    gres: saved?.gres ?? '',
    cpus: saved?.cpus !== undefined ? String(saved.cpus) : '',
    mem: saved?.mem ?? '',
    constraint: saved?.constraint ?? '',
    extraSbatch: saved?.extraSbatch.join('\n') ?? '',
    preamble: saved?.preamble.join('\n') ?? '',
    nodeAccess: saved?.nodeAccess ?? ('ssh' as ClusterJobSettings['nodeAccess']),
  });
  const set = (patch: Partial<typeof v>) => setV((o) => ({ ...o, ...patch }));
  const build = (): JobInput => {
    const opt = (k: 'partition' | 'account' | 'qos' | 'time' | 'gres' | 'mem' | 'constraint') => (v[k].trim() ? { [k]: v[k].trim() } : {});
    return {
      ...opt('partition'), ...opt('account'), ...opt('qos'), ...opt('time'), ...opt('gres'), ...opt('mem'), ...opt('constraint'),
      ...(v.cpus.trim() ? { cpus: Number(v.cpus) } : {}),
      extraSbatch: lines(v.extraSbatch),
      // Lines keep their indentation: they are shell, run as written.
      preamble: v.preamble.split('\n').filter((l) => l.trim()),
      nodeAccess: v.nodeAccess,
      // Settings the form does not show are kept as saved.
      ...(saved?.windowManager ? { windowManager: saved.windowManager } : {}),
      ...(saved?.optRoot ? { optRoot: saved.optRoot } : {}),
    };
  };
  return { v, set, build };
}

export type JobSettingsState = ReturnType<typeof useJobSettings>;

/**
 * A cluster profile's job settings. What the cluster offers (sinfo's partitions with their GPUs,
 * sacctmgr's accounts) is shown once asked for; a cluster without accounting says so plainly.
 */
export function JobSettingsFields({ s, defaults, asking, onAsk }: { s: JobSettingsState; defaults: ClusterDefaultsView | null; asking: boolean; onAsk(): void }) {
  const { t } = useTranslation('cluster');
  const { v, set } = s;
  const chosen = defaults?.partitions.find((p) => p.name === v.partition);
  return (
    <fieldset className="job-settings" data-testid="job-settings">
      <legend>{t('form.legend')}</legend>
      <div className="offered" data-testid="cluster-defaults">
        {!defaults && (
          <p className="muted small">
            {t('form.askText')}{' '}
            <button type="button" onClick={onAsk} disabled={asking} data-testid="ask-cluster">{asking ? t('form.asking') : t('form.ask')}</button>
          </p>
        )}
        {defaults && (
          <>
            <p className="muted small">{defaults.partitions.length ? t('form.offered') : t('form.noPartitions')}</p>
            <div className="chips">
              {defaults.partitions.map((p) => (
                <button
                  type="button"
                  key={p.name}
                  className={v.partition === p.name ? 'chip current' : 'chip'}
                  aria-pressed={v.partition === p.name}
                  data-testid={`partition-${p.name}`}
                  onClick={() => set({ partition: p.name, ...(p.gres[0] && !v.gres ? { gres: p.gres[0] } : {}) })}
                >
                  {p.name}
                  {p.isDefault ? ` · ${t('form.default')}` : ''}
                  {p.gres.length ? ` · ${p.gres.join(', ')}` : ` · ${t('form.noGpus')}`}
                  {p.maxTime && !/^(infinite|unlimited)$/i.test(p.maxTime) ? ` · ${t('form.maxTime', { time: p.maxTime })}` : ''}
                  {!p.up ? ` · ${t('form.down')}` : ''}
                </button>
              ))}
            </div>
            {defaults.accounts === null && <p className="muted small" data-testid="no-accounting">{t('form.noAccounting')}</p>}
          </>
        )}
      </div>
      <div className="row">
        <label className="grow">{t('form.partition')}<input value={v.partition} onChange={(e) => set({ partition: e.target.value })} placeholder={t('form.clusterDefault')} /></label>
        <label className="grow">{t('form.gres')}
          <input value={v.gres} onChange={(e) => set({ gres: e.target.value })} placeholder="gpu:1, gpu:a100:2" list="gres-offered" />
          <datalist id="gres-offered">{(chosen?.gres ?? []).map((g) => <option key={g} value={g} />)}</datalist>
        </label>
        <label className="small">{t('form.time')}<input value={v.time} onChange={(e) => set({ time: e.target.value })} placeholder="2:00:00" /></label>
      </div>
      <div className="row">
        <label className="grow">{t('form.account')}
          <input value={v.account} onChange={(e) => set({ account: e.target.value })} placeholder={t('form.clusterDefault')} list="accounts-offered" />
          <datalist id="accounts-offered">{(defaults?.accounts ?? []).map((a) => <option key={a} value={a} />)}</datalist>
        </label>
        <label className="grow">{t('form.qos')}<input value={v.qos} onChange={(e) => set({ qos: e.target.value })} placeholder={t('form.clusterDefault')} /></label>
      </div>
      <div className="row">
        <label className="small">{t('form.cpus')}<input value={v.cpus} onChange={(e) => set({ cpus: e.target.value })} inputMode="numeric" /></label>
        <label className="small">{t('form.mem')}<input value={v.mem} onChange={(e) => set({ mem: e.target.value })} placeholder="16G" /></label>
        <label className="grow">{t('form.constraint')}<input value={v.constraint} onChange={(e) => set({ constraint: e.target.value })} /></label>
      </div>
      <label>{t('form.extraSbatch')}<textarea rows={2} value={v.extraSbatch} onChange={(e) => set({ extraSbatch: e.target.value })} placeholder="--exclusive" /></label>
      <label>{t('form.preamble')}<textarea rows={2} value={v.preamble} onChange={(e) => set({ preamble: e.target.value })} placeholder="module load VirtualGL TurboVNC" /></label>
      <label>{t('form.nodeAccess')}
        <select value={v.nodeAccess} onChange={(e) => set({ nodeAccess: e.target.value as ClusterJobSettings['nodeAccess'] })}>
          <option value="ssh">{t('form.access.ssh')}</option>
          <option value="login-forward">{t('form.access.loginForward')}</option>
        </select>
      </label>
      {v.nodeAccess === 'login-forward' && <p className="muted small" role="note" data-testid="login-forward-clear">{t('form.loginForwardClear')}</p>}
    </fieldset>
  );
}
