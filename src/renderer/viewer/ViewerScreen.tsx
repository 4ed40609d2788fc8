import { useEffect, useRef, useState } from 'react';
import type { ClusterJobView, ConnectionView, Profile, ViewerPrefs } from '../../shared/models';
import { useGo } from '../app/navigation';
import { useApi } from '../app/api';
import { useTranslation } from 'react-i18next';
import { h264Available, type ViewerSession } from './rfbSession';
import { remotePointer } from './rfbPatches';
import { Hud } from './Hud';
import { CodecPanel } from './CodecPanel';
import { KEY_COMBOS } from './keys';
import { loadPrefs, profileInput, savedPart, storeLocal } from './prefs';
import { ForwardsPanel } from '../forwards/ForwardsPanel';
import { useFileDrop } from '../files/useFileDrop';
import { useUploads } from '../files/useUploads';
import { CloseJobDialog, JobViewerBar } from '../cluster/JobViewerBar';
import { useEndedLine } from '../cluster/jobText';
import { useClipboardSync } from './useClipboardSync';
import { InviteDialog } from './InviteDialog';
import { useShareable } from './useShareable';
import { LOSSLESS_SHORTCUT, useLosslessShortcut } from './losslessShortcut';
import { useScreensChoice } from './ScreensChoice';
import { viewerHash } from '../app/viewerLink';
import { GRAB_SHORTCUT } from './keyboardGrab';
import { useWindowShortcut } from './windowShortcut';
import { SPAN_SHORTCUT } from './shortcutKeys';
import { useKeyboardGrab } from './useKeyboardGrab';
import { useFullScreenCaptureRelease } from './fullScreenCapture';
import { usePointerLock, type Point } from './pointerLock';
import { useDeskDisplayCount } from './useDeskDisplayCount';
import { useViewerConnection } from './useViewerConnection';
import { useViewerStats } from './useViewerStats';

/**
 * The viewer on a server's display, or (with `job`) on a cluster job's desktop: then the ticket comes
 * from clusters.viewer, the bar shows the job's time and warnings, and closing asks about the job.
 */
export function ViewerScreen({ connectionId, connection: conn, display: fixedDisplay, job, jobView, profile, renderGpu, span = false }: {
  connectionId: string;
  connection?: ConnectionView;
  display: number | null;
  job?: string;
  /** The job's latest state (with `job`). */
  jobView?: ClusterJobView;
  profile?: Profile;
  /** The GPU (nvidia-smi index) the desktop renders on, when its info says: the HUD shows that one. */
  renderGpu?: number;
  /**
   * A window spanning every desk monitor (the toolbar's "Span monitors"): no chrome, the desktop
   * resized to one screen per monitor at 1:1, the saved choices left as they are.
   */
  span?: boolean;
}) {
  const api = useApi();
  const go = useGo();
  const { t } = useTranslation(['viewer', 'common']);
  const wrapRef = useRef<HTMLDivElement>(null);
  const [prefs, setPrefs] = useState<ViewerPrefs>(() => (span ? { ...loadPrefs(profile), scale: 'remote' } : loadPrefs(profile)));
  const prefsRef = useRef(prefs);
  prefsRef.current = prefs;
  const [panel, setPanel] = useState<'codec' | 'keys' | 'clipboard' | null>(null);
  const [localClip, setLocalClip] = useState('');
  const [h264, setH264] = useState(false);
  const [vncPassword, setVncPassword] = useState('');
  const uploads = useUploads(connectionId);
  // Dropped on the desktop: to ~/Desktop where it exists (it shows on the remote desktop), else ~.
  const drop = useFileDrop((files) => void uploads.upload(files));
  const { t: tFiles } = useTranslation('files');
  const { t: tCluster } = useTranslation('cluster');
  const jobEnded = jobView?.phase === 'ended';
  const endedLine = useEndedLine();
  const [closing, setClosing] = useState(false);
  const [inviting, setInviting] = useState(false);
  const screens = useScreensChoice(profile?.id, span ? 'monitors' : undefined);
  const deskDisplays = useDeskDisplayCount();
  useWindowShortcut(SPAN_SHORTCUT, () => window.close(), span);
  // The clipboard sync takes the connection's refs and hears of its copies: a ref closes the loop.
  const deskGotText = useRef<(text: string) => void>(() => {});
  const v = useViewerConnection({ connectionId, display: fixedDisplay, job, sshState: conn?.state, jobEnded, prefs, attachScreens: screens.attach, deskGotText: (text) => deskGotText.current(text) });
  const { session, videoMode, viewerId, screenRef, phase, why, video, turbo } = v;
  useLosslessShortcut(session);
  // Shared both ways while the viewer has focus; a view-only viewer sends nothing, so it shares nothing.
  const clip = useClipboardSync({ api, session, viewerId, screen: screenRef, enabled: prefs.autoClipboard && !prefs.viewOnly, connected: phase === 'connected' });
  deskGotText.current = clip.deskGotText;
  const pointer = usePointerLock(screenRef, mouseAt(session));
  const grab = useKeyboardGrab(prefs.grabInFullScreen, pointer);
  useFullScreenCaptureRelease();
  const display = fixedDisplay ?? v.jobRoute?.display ?? null;
  const shareable = useShareable(api, connectionId, display, turbo && !job);
  const { tunnel, tunnelHistory } = useViewerStats({ viewerId, videoMode, measureRtt: prefs.codec !== 'vnc' });

  useEffect(() => {
    void h264Available().then(setH264);
  }, []);

  const update = (p: ViewerPrefs) => {
    setPrefs(p);
    v.applyPrefs(p);
    // A spanning window's settings are its own (1:1, one screen per monitor): the server keeps its saved ones.
    if (profile && !span) {
      storeLocal(profile.id, p);
      const saved = savedPart(p);
      if (JSON.stringify(saved) !== JSON.stringify(savedPart(prefsRef.current)) || JSON.stringify(saved) !== JSON.stringify(profile.viewer)) {
        void api.invoke('profiles.save', { profile: profileInput(profile, saved) }).catch(() => {});
      }
    }
  };

  const fullscreen = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    // Keys typed in full screen go to the remote desktop at once, not to the button that was clicked.
    else void wrapRef.current?.requestFullscreen().then(() => session.current?.focus(), () => {});
  };

  // Another window onto this desktop (a browser tab in the harness; Electron gives a spanning one its own bounds, main/index.ts).
  const openViewerWindow = (spanning: boolean) => {
    if (display !== null && profile) window.open(`${location.pathname}${location.search}${viewerHash({ connectionId, profileId: profile.id, display, span: spanning })}`, '_blank');
  };

  const sshState = conn?.state;
  const overlay =
    jobView && jobEnded ? { title: tCluster('viewer.endedTitle', { jobId: jobView.jobId }), text: endedLine(jobView) }
    : job && (phase === 'opening' || phase === 'connecting') ? { title: t('overlay.connecting'), text: tCluster('viewer.opening', { jobId: job }) }
    : phase === 'connected' && sshState === 'reconnecting' ? { title: t('overlay.reconnecting'), text: t('overlay.sshDropped') }
    : phase === 'opening' || phase === 'connecting' ? { title: t('overlay.connecting'), text: t('overlay.opening', { display: display ?? '' }) }
    : phase === 'reconnecting' ? { title: t('overlay.reconnecting'), text: why ?? '' }
    : phase === 'lost' || phase === 'disconnected' ? { title: v.everConnected ? t('overlay.lost') : t('overlay.neverConnected'), text: why ?? t('overlay.unreachable') }
    : null;

  return (
    <section className={span ? 'viewer span' : 'viewer'} data-span={span ? 'on' : undefined} data-keyboard-grab={grab.grabbed ? 'on' : 'off'} data-keyboard-lock={grab.lock} data-pointer-lock={pointer.locked ? 'on' : 'off'} aria-label={job ? tCluster('viewer.aria', { jobId: job }) : t('aria', { display: display ?? '' })} data-phase={phase} data-display={display ?? undefined}>
      <div className="viewer-bar" role="toolbar" aria-label={t('toolbar')}>
        {job
          ? <button onClick={() => (jobEnded ? go({ screen: 'cluster', connectionId, profileId: profile?.id ?? '' }) : setClosing(true))} data-testid="job-viewer-close">{tCluster('viewer.close')}</button>
          : <button onClick={() => go({ screen: 'server', connectionId, profileId: profile?.id ?? '' })} aria-label={t('backAria')}>{t('back')}</button>}
        <label>{t('scale')}
          <select value={prefs.scale} onChange={(e) => update({ ...prefs, scale: e.target.value as ViewerPrefs['scale'] })} aria-label={t('scaleAria')}>
            <option value="fit">{t('scaleFit')}</option>
            <option value="native">{t('scaleNative')}</option>
            <option value="remote">{t('scaleRemote')}</option>
          </select>
        </label>
        {screens.ui}
        <button aria-pressed={panel === 'codec'} onClick={() => setPanel(panel === 'codec' ? null : 'codec')} data-testid="open-codec">{t('quality')}</button>
        <button aria-pressed={panel === 'keys'} onClick={() => setPanel(panel === 'keys' ? null : 'keys')} aria-haspopup="menu">{t('sendKeys')}</button>
        <button onClick={() => session.current?.ctrlAltDel()}>Ctrl+Alt+Del</button>
        <button onClick={() => session.current?.losslessRefresh()} aria-keyshortcuts={LOSSLESS_SHORTCUT.aria} title={t('lossless.title', { keys: LOSSLESS_SHORTCUT.label })} data-testid="lossless-refresh">{t('lossless.button')} <kbd>{LOSSLESS_SHORTCUT.label}</kbd></button>
        {turbo && !job && display !== null && (shareable === false
          ? <><button disabled title={t('invite.notShareable')} aria-describedby="invite-why" data-testid="invite-open">{t('invite.button')}</button><span id="invite-why" className="sr-only" data-testid="invite-why">{t('invite.notShareableShort')}</span></>
          : <button onClick={() => setInviting(true)} data-testid="invite-open">{t('invite.button')}</button>)}
        <button aria-pressed={panel === 'clipboard'} onClick={() => setPanel(panel === 'clipboard' ? null : 'clipboard')}>{t('clipboard')}</button>
        <label className="check"><input type="checkbox" checked={prefs.viewOnly} onChange={(e) => update({ ...prefs, viewOnly: e.target.checked })} /> {t('viewOnly')}</label>
        <label className="check"><input type="checkbox" checked={prefs.showHud} onChange={(e) => update({ ...prefs, showHud: e.target.checked })} data-testid="toggle-hud" /> {t('figures')}</label>
        <button onClick={fullscreen}>{t('fullScreen')}</button>
        {!job && display !== null && profile && <button onClick={() => openViewerWindow(false)} title={t('newWindowTitle')} data-testid="viewer-new-window">{t('newWindow')}</button>}
        {!job && display !== null && profile && deskDisplays > 1 && <button onClick={() => openViewerWindow(true)} title={t('span.title', { count: deskDisplays })} data-testid="viewer-span">{t('span.button')}</button>}
        <button aria-pressed={grab.grabbed} onClick={() => { grab.toggle(); session.current?.focus(); }} aria-keyshortcuts={GRAB_SHORTCUT.aria} title={t('grab.title', { keys: GRAB_SHORTCUT.label })} data-testid="keyboard-grab">{t('grab.button')}</button>
        <button aria-pressed={pointer.locked} onClick={() => { pointer.toggle(); session.current?.focus(); }} title={t('pointer.title', { keys: GRAB_SHORTCUT.label })} data-testid="pointer-lock" disabled={phase !== 'connected'}>{t('pointer.button')}</button>
        <span className={`phase phase-${phase}`} role="status" data-testid="viewer-phase" data-phase={phase === 'connected' && sshState === 'reconnecting' ? 'reconnecting' : phase}>{t(`phase.${phase === 'connected' && sshState === 'reconnecting' ? 'reconnecting' : phase}`)}</span>
      </div>
      {job && <JobViewerBar job={jobView} route={v.jobRoute} />}
      <div
        className="viewer-body"
        ref={wrapRef}
        data-testid="viewer-drop"
        {...drop.handlers}
      >
        {span && (
          <p className="span-chip" role="status" data-testid="span-chip">
            {screens.found ? t('span.on', { count: screens.found }) : t('span.finding')} <kbd>{SPAN_SHORTCUT.label}</kbd>
            <button onClick={() => window.close()} data-testid="span-leave">{t('span.leave')}</button>
          </p>
        )}
        {grab.grabbed && <p className="grab-indicator" role="status" data-testid="keyboard-grabbed">{t('grab.on', { keys: GRAB_SHORTCUT.label })}</p>}
        {pointer.locked && <p className="grab-indicator pointer-indicator" role="status" data-testid="pointer-locked">{t('pointer.on')}</p>}
        {drop.over && <div className="viewer-overlay drop-overlay">{tFiles('dropOnViewer')}</div>}
        <aside className="viewer-dock">
          <ForwardsPanel connectionId={connectionId} profile={profile} autoOpen compact />
          {uploads.ui}
        </aside>
        <div className={`screen-host scale-${prefs.scale} last-picture`} ref={v.lastRef} data-testid="last-picture" aria-hidden />
        <div className={`screen-host scale-${prefs.scale}`} ref={screenRef} data-testid="vnc-screen" />
        {overlay && (
          <div className="viewer-overlay" role={phase === 'lost' || jobEnded ? 'alert' : 'status'} data-testid={jobEnded ? 'job-ended' : undefined}>
            <h2>{overlay.title}</h2>
            <p>{overlay.text}</p>
            {(phase === 'lost' || phase === 'disconnected') && !jobEnded && <button className="primary" onClick={v.reconnect}>{t('overlay.reconnect')}</button>}
          </div>
        )}
        {v.askPassword && (
          <form className="viewer-overlay" aria-label={t('password.aria')} onSubmit={(e) => { e.preventDefault(); v.answerPassword(vncPassword); setVncPassword(''); }}>
            <h2>{t('password.title')}</h2>
            <p>{t('password.text')}</p>
            <input type="password" aria-label={t('password.aria')} value={vncPassword} onChange={(e) => setVncPassword(e.target.value)} autoFocus />
            <label className="check"><input type="checkbox" checked={prefs.viewOnly} onChange={(e) => update({ ...prefs, viewOnly: e.target.checked })} /> {t('password.viewOnly')}</label>
            <div className="actions"><button type="button" onClick={() => v.answerPassword(null)}>{t('common:actions.cancel')}</button><button type="submit" className="primary">{t('password.connect')}</button></div>
          </form>
        )}
        {prefs.showHud && <Hud history={v.history} tunnel={tunnel} tunnelHistory={tunnelHistory} video={video} viewerId={v.openViewerId} renderGpu={renderGpu} />}
        {clip.note && <p className="video-fallback clip-note" role="status" data-testid="clip-note" data-n={clip.note.n}>{clip.note.text}</p>}
        {video?.fallback && phase === 'connected' && <p className="video-fallback" role="status" data-testid="video-fallback">{t('videoFallback', { reason: video.fallback })}</p>}
        {panel === 'codec' && <CodecPanel prefs={prefs} turbo={turbo} h264={h264} live={v.live} video={video} onChange={update} onClose={() => setPanel(null)} />}
        {panel === 'keys' && (
          <aside className="menu keys-panel" aria-labelledby="send-keys-title" data-testid="send-keys">
            <div className="panel-head"><h2 id="send-keys-title">{t('keys.menu')}</h2><button className="icon" onClick={() => { setPanel(null); session.current?.focus(); }} aria-label={t('keys.close')}>×</button></div>
            <div role="menu" aria-label={t('keys.menu')} className="keys-list">
              {KEY_COMBOS.map((k) => (
                <button key={k.label} role="menuitem" onClick={() => { session.current?.sendCombo(k.keys); setPanel(null); session.current?.focus(); }}>{k.words ? t(`keys.${k.words}`) : k.label}</button>
              ))}
            </div>
            <label className="check"><input type="checkbox" checked={prefs.grabInFullScreen} onChange={(e) => update({ ...prefs, grabInFullScreen: e.target.checked })} data-testid="grab-in-full-screen" /> {t('grab.inFullScreen')}</label>
          </aside>
        )}
        {panel === 'clipboard' && (
          <aside className="clip-panel" aria-label={t('clip.aria')}>
            <label className="check"><input type="checkbox" checked={prefs.autoClipboard} onChange={(e) => update({ ...prefs, autoClipboard: e.target.checked })} data-testid="clip-auto" /> {t('clip.auto')}</label>
            <label>{t('clip.remote')}<textarea readOnly value={v.remoteClip} rows={3} /></label>
            <button onClick={() => navigator.clipboard?.writeText(v.remoteClip).catch(() => {})} disabled={!v.remoteClip}>{t('clip.copy')}</button>
            <label>{t('clip.send')}<textarea value={localClip} onChange={(e) => setLocalClip(e.target.value)} rows={3} /></label>
            <div className="actions">
              <button onClick={async () => { try { setLocalClip(await navigator.clipboard.readText()); } catch { /* permission refused: type or paste instead */ } }}>{t('clip.paste')}</button>
              <button className="primary" onClick={() => session.current?.paste(localClip)} disabled={!localClip}>{t('clip.sendButton')}</button>
            </div>
            <button onClick={clip.pasteImageFromServer} disabled={phase !== 'connected'} data-testid="clip-image-from-server">{t('clipSync.pasteImage')}</button>
          </aside>
        )}
      </div>
      {inviting && display !== null && <InviteDialog connectionId={connectionId} display={display} onClose={() => setInviting(false)} />}
      {closing && job && (
        <CloseJobDialog
          connectionId={connectionId}
          jobId={job}
          onDone={() => { setClosing(false); go({ screen: 'cluster', connectionId, profileId: profile?.id ?? '' }); }}
          onCancel={() => setClosing(false)}
        />
      )}
    </section>
  );

}

/** Where noVNC last put the remote pointer (canvas CSS pixels), for the pointer lock to start from. */
function mouseAt(session: { current: ViewerSession | null }): () => Point | null {
  return () => (session.current ? remotePointer(session.current.rfb) : null);
}

