import { useTranslation } from 'react-i18next';
import { withCode } from '../app/codeSpans';
import type { ServerReportView } from '../../shared/models';
import { useFormat } from '../i18n/useFormat';
import { useFindingText } from '../i18n/findings';

const SEV_ORDER = { error: 0, warning: 1, info: 2 } as const;

export function ProbeReport({ report, probing, error, onSetup }: { report: ServerReportView | null; probing: boolean; error: string | null; onSetup(): void }) {
  const { t } = useTranslation('server');
  const fmt = useFormat();
  const findingText = useFindingText();
  if (error) return <p className="banner error" role="alert">{error}</p>;
  if (!report) return <p role="status" className="progress">{probing ? t('report.probing') : t('report.none')}</p>;
  const r = report;
  return (
    <div className="report" data-testid="probe-report">
      <h2>{t('report.findings')}</h2>
      {r.findings.length === 0 ? <p>{t('report.nothingToFix')}</p> : (
        <ul className="findings">
          {[...r.findings].sort((a, b) => SEV_ORDER[a.severity] - SEV_ORDER[b.severity]).map((f) => (
            <li key={f.code} className={`finding sev-${f.severity}`} data-code={f.code}>
              <p><span className="sev">{t(`report.severity.${f.severity}`)}</span> {withCode(findingText(f).message)}</p>
              {/* Information is not a problem: what it adds is a note, not a "Fix:". */}
              {f.severity === 'info'
                ? findingText(f).fix && <p className="fix muted">{withCode(findingText(f).fix)}</p>
                : <p className="fix"><strong>{t('report.fix')}</strong> {withCode(findingText(f).fix)}</p>}
            </li>
          ))}
        </ul>
      )}
      {r.findings.some((f) => f.severity !== 'info') && <button className="primary" onClick={onSetup}>{t('report.reviewPlan')}</button>}
      <h2>{t('report.server')}</h2>
      <dl className="kv">
        <dt>{t('report.system')}</dt><dd>{r.os.prettyName} · {r.os.arch} · {t('report.kernel', { kernel: r.os.kernel })}{r.os.supported ? '' : t('report.noRecipe')}</dd>
        <dt>{t('report.account')}</dt><dd>{r.user} · {t('report.sudo', { sudo: t(`report.sudoValue.${r.sudo}`) })}</dd>
        <dt>{t('report.nvidia')}</dt><dd>{r.gpus.length ? t('report.gpus', { count: r.gpus.length, driver: r.nvidia.driverVersion ?? '?' }) : r.nvidia.smiError ?? t('report.noDriver')}</dd>
        <dt>{t('report.virtualgl')}</dt><dd>{r.virtualgl.installed ? (r.virtualgl.eglUsable ? t('report.eglUsable', { version: r.virtualgl.version ?? t('report.installed') }) : t('report.eglNotUsable', { version: r.virtualgl.version ?? t('report.installed'), reason: r.virtualgl.eglReason })) : t('report.notInstalled')}</dd>
        <dt>{t('report.xserver')}</dt><dd>{r.xserver.running ? `${r.xserver.renderer ?? t('report.unknownRenderer')}${r.xserver.softwareRenderer ? t('report.softwareRendering') : ''}` : t('report.noXserver')}</dd>
        <dt>{t('report.vnc')}</dt><dd>{r.vnc.flavor ? `${r.vnc.flavor === 'turbovnc' ? 'TurboVNC' : 'TigerVNC'} ${r.vnc.version ?? ''}` : t('report.noneValue')}</dd>
        <dt>{t('report.wms')}</dt><dd>{r.windowManagers.length ? fmt.list(r.windowManagers) : t('report.noneFound')}</dd>
        <dt>{t('report.vulkan')}</dt>
        <dd data-testid="vulkan-devices">{!r.vulkan.loader ? t('report.vulkanNoLoader') : !r.vulkan.vulkaninfo ? t('report.vulkanNoTool') : r.vulkan.devices.length === 0 ? t('report.vulkanNoDevice', { error: r.vulkan.error ?? '' }) : (
          <>
            {r.vulkan.devices.map((d, i) => (
              <div key={i} data-type={d.type}>{d.name} · {t(`report.vulkanType.${d.type}`)}{d.apiVersion ? ` · Vulkan ${d.apiVersion}` : ''}{d.driverInfo ? ` · ${d.driverInfo}` : ''}{d.gpuIndex !== null ? ` · ${t('report.vulkanGpu', { index: d.gpuIndex })}` : ''}</div>
            ))}
          </>
        )}</dd>
        <dt>{t('report.dm')}</dt><dd>{r.displayManager ?? t('report.noneValue')}</dd>
        <dt>{t('report.probeTime')}</dt><dd>{fmt.ms(r.probeMs)}</dd>
      </dl>
    </div>
  );
}
