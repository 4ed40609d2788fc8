import { useEffect, useRef, useState } from 'react';
import type { ByteCounters, ClusterJobView, ConnectionView, Profile, ViewerPrefs } from '../../shared/models';
import { useGo } from '../app/navigation';
import { useApi } from '../app/api';
import { useTranslation } from 'react-i18next';
import { useErrorLine } from '../i18n/errors';
import { ViewerSession, h264Available, type ViewerState } from './rfbSession';
import { remotePointer, screenElement } from './rfbPatches';
import { takeViewerTicket } from './ticketPrefetch';
import { Hud } from './Hud';
import { CodecPanel } from './CodecPanel';
import { KEY_COMBOS } from './keys';
import { loadPrefs, profileInput, savedPart, storeLocal } from './prefs';
import { tunnelRate, type TunnelRate, type ViewerSample } from './stats';
import { ForwardsPanel } from '../forwards/ForwardsPanel';
import { useFileDrop } from '../files/useFileDrop';
import { useUploads } from '../files/useUploads';
import { CloseJobDialog, JobViewerBar, jobRouteOf, type JobRoute } from '../cluster/JobViewerBar';
import { useEndedLine } from '../cluster/jobText';
import { VideoMode, type VideoView } from './video/videoMode';
import { sessionPlayers } from './video/videoPlayer';
import { fromServerClipboard } from './serverClipboard';
import { useClipboardSync } from './useClipboardSync';
import { InviteDialog } from './InviteDialog';
import { useShareable } from './useShareable';
import { FORWARD_REFUSED_CLOSE } from '../../shared/viewerClose';
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

type Phase = 'opening' | ViewerState | 'reconnecting' | 'lost';

const MAX_RETRIES = 20;

declare global {
  interface Window {
    /** The live viewer, for the benchmark's key-to-screen probe (debug pages only). */
    __gpuDeskViewer?: ViewerSession;
  }
}

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
  const errorLine = useErrorLine();
  const tRef = useRef(t);
  tRef.current = t;
  const screenRef = useRef<HTMLDivElement>(null);
  // The last picture of a viewer that dropped, kept under the next one until that one draws.
  const lastRef = useRef<HTMLDivElement>(null);
  const wrapRef = useRef<HTMLDivElement>(null);
  const session = useRef<ViewerSession | null>(null);
  const videoMode = useRef<VideoMode | null>(null);
  const [video, setVideo] = useState<VideoView | null>(null);
  const viewerId = useRef<string | null>(null);
  /** The open viewer's id as state: the HUD's GPU panel asks for figures by it. */
  const [openViewerId, setOpenViewerId] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>('opening');
  const [why, setWhy] = useState<string | null>(null);
  const [prefs, setPrefs] = useState<ViewerPrefs>(() => (span ? { ...loadPrefs(profile), scale: 'remote' } : loadPrefs(profile)));
  const prefsRef = useRef(prefs);
  prefsRef.current = prefs;
  const [history, setHistory] = useState<ViewerSample[]>([]);
  const [tunnel, setTunnel] = useState<TunnelRate | null>(null);
  const [tunnelHistory, setTunnelHistory] = useState<number[]>([]);
  const [panel, setPanel] = useState<'codec' | 'keys' | 'clipboard' | null>(null);
  const [remoteClip, setRemoteClip] = useState('');
  const [localClip, setLocalClip] = useState('');
  const [live, setLive] = useState({ quality: prefs.quality, compression: prefs.compression });
  const [h264, setH264] = useState(false);
  const [turbo, setTurbo] = useState(false);
  const [askPassword, setAskPassword] = useState(false);
  const [vncPassword, setVncPassword] = useState('');
  const [gen, setGen] = useState(0);
  const retries = useRef(0);
  // A desktop that never answered is not a "lost" connection: the overlay says which it was.
  const everConnected = useRef(false);
  const uploads = useUploads(connectionId);
  // Dropped on the desktop: to ~/Desktop where it exists (it shows on the remote desktop), else ~.
  const drop = useFileDrop((files) => void uploads.upload(files));
  const { t: tFiles } = useTranslation('files');
  const { t: tCluster } = useTranslation('cluster');
  const sshStateRef = useRef(conn?.state);
  sshStateRef.current = conn?.state;
  const jobEnded = jobView?.phase === 'ended';
  const jobEndedRef = useRef(jobEnded);
  jobEndedRef.current = jobEnded;
  const endedLine = useEndedLine();
  const [jobRoute, setJobRoute] = useState<JobRoute | null>(null);
  const [closing, setClosing] = useState(false);
  const [inviting, setInviting] = useState(false);
  useLosslessShortcut(session);
  const screens = useScreensChoice(profile?.id, span ? 'monitors' : undefined);
  const deskDisplays = useDeskDisplayCount();
  useWindowShortcut(SPAN_SHORTCUT, () => window.close(), span);
  const attachScreens = useRef(screens.attach);
  attachScreens.current = screens.attach;
  // Shared both ways while the viewer has focus; a view-only viewer sends nothing, so it shares nothing.
  const clip = useClipboardSync({ api, session, viewerId, screen: screenRef, enabled: prefs.autoClipboard && !prefs.viewOnly, connected: phase === 'connected' });
  const clipRef = useRef(clip);
  clipRef.current = clip;
  const pointer = usePointerLock(screenRef, mouseAt(session));
  const grab = useKeyboardGrab(prefs.grabInFullScreen, pointer);
  useFullScreenCaptureRelease();
  const display = fixedDisplay ?? jobRoute?.display ?? null;
  const shareable = useShareable(api, connectionId, display, turbo && !job);

  useEffect(() => {
    void h264Available().then(setH264);
  }, []);

  // One viewer per attempt: a new ticket each time (tickets are single-use).
  useEffect(() => {
    let cancelled = false;
    let retryTimer: ReturnType<typeof setTimeout> | null = null;
    const target = screenRef.current!;
    const retry = (reason: string) => {
      if (cancelled) return;
      // A job that ended took its desktop with it: nothing to reconnect to.
      if (jobEndedRef.current) { setPhase('lost'); setWhy(reason); return; }
      retries.current++;
      if (retries.current > MAX_RETRIES) {
        setPhase('lost');
        setWhy(reason);
        return;
      }
      setPhase('reconnecting');
      setWhy(reason);
      retryTimer = setTimeout(() => setGen((g) => g + 1), Math.min(5000, 500 * 2 ** Math.min(retries.current, 4)));
    };
    (async () => {
      let ticket;
      performance.mark('gd:effect');
      try {
        if (job) {
          const jt = await api.invoke('clusters.viewer', { connectionId, jobId: job });
          if (!cancelled) setJobRoute(jobRouteOf(jt));
          ticket = jt;
        } else ticket = await (takeViewerTicket(connectionId, fixedDisplay!) ?? api.invoke('viewer.open', { connectionId, display: fixedDisplay! }));
      } catch (e) {
        if (cancelled) return;
        const line = errorLine(e);
        if ((e as { code?: string }).code === 'NOT_CONNECTED' && sshStateRef.current === 'reconnecting') retry(line);
        else { setPhase('lost'); setWhy(line); }
        return;
      }
      if (cancelled) {
        void api.invoke('viewer.close', { viewerId: ticket.viewerId });
        return;
      }
      performance.mark('gd:ticket');
      viewerId.current = ticket.viewerId;
      setOpenViewerId(ticket.viewerId);
      setTurbo(ticket.flavor === 'turbovnc');
      setPhase(retries.current > 0 ? 'reconnecting' : 'connecting');
      const s = new ViewerSession({
        target,
        ticket,
        // ?plain: noVNC's own decode and pacing, only to measure what gpu-desk's fast path adds.
        fastPath: !new URLSearchParams(location.search).has('plain'),
        prefs: prefsRef.current,
        onState: (st, detail) => {
          if (cancelled) return;
          if (st === 'connected') {
            const p = prefsRef.current;
            vm.setCodec(p.codec, p.videoMinKbps, p.videoMaxKbps);
            retries.current = 0;
            setPhase('connected');
            setWhy(null);
            everConnected.current = true;
            s.focus();
          } else if (st === 'disconnected') {
            keepLastPicture(s, lastRef.current);
            if (detail?.reason) { setPhase('lost'); setWhy(detail.reason); }
            else if (s.channel.closeCode === FORWARD_REFUSED_CLOSE) { setPhase('lost'); setWhy(tRef.current(s.channel.closeReason === 'SOCKET_FORWARD_REFUSED' ? 'overlay.socketForwardRefused' : 'overlay.forwardProhibited', { display: ticket.display })); }
            else if (s.channel.closeCode === 1011 && sshStateRef.current === 'ready') { setPhase('lost'); setWhy(tRef.current('overlay.notRunning', { display: ticket.display, reason: s.channel.closeReason || tRef.current('overlay.nothingListens') })); }
            // Anything else is retried: a dropped SSH link comes back, and a desktop that is gone
            // shows up on the next attempt as 1011 (nothing listens on its port) → lost.
            else retry(tRef.current('overlay.dropped'));
          }
        },
        onSample: (x) => {
          // Once connected again, a second of the new viewer has drawn over the kept picture.
          if (!cancelled && s.state === 'connected') lastRef.current?.replaceChildren();
          if (!cancelled) setHistory(s.history.all());
          vm.tick(x.fps);
        },
        onRemoteClipboard: (text) => {
          const c = fromServerClipboard(text, { auto: prefsRef.current.autoClipboard, viewOnly: prefsRef.current.viewOnly });
          setRemoteClip(c.tooLarge ? tRef.current('clip.tooLarge', { size: `${(text.length / 1048576).toFixed(1)} MiB`, limit: '1 MiB' }) : text);
          // Best effort: the browser may refuse without focus or permission; the panel still shows it.
          if (c.copy) navigator.clipboard?.writeText(text).then(() => clipRef.current.deskGotText(text), () => {});
        },
        onQualityChange: (quality, compression) => setLive({ quality, compression }),
        onCredentialsRequired: () => { if (!cancelled) setAskPassword(true); },
        fetchPassword: async () => (await api.invoke('viewer.password', { viewerId: ticket.viewerId })).password,
      });
      // Video mode rides on this viewer: its stream is the server's encoder, on its own channel.
      const vm = new VideoMode({
        session: s,
        openPlayer: sessionPlayers(s),
        start: (spec) => api.invoke('viewer.videoStart', { viewerId: ticket.viewerId, ...spec }),
        stop: () => api.invoke('viewer.videoStop', { viewerId: ticket.viewerId }),
        onView: (v) => { if (!cancelled) setVideo(v); },
        // The page's console: the harness's e2e prints it with the app's log when a spec fails.
        log: (l) => console.info(`gpu-desk viewer: ${l}`),
      });
      videoMode.current = vm;
      attachScreens.current(s.rfb);
      session.current = s;
      if (new URLSearchParams(location.search).has('debug')) window.__gpuDeskViewer = s;
    })();
    return () => {
      cancelled = true;
      if (retryTimer) clearTimeout(retryTimer);
      videoMode.current?.close();
      videoMode.current = null;
      setVideo(null);
      session.current?.close();
      session.current = null;
      if (viewerId.current) void api.invoke('viewer.close', { viewerId: viewerId.current }).catch(() => {});
      viewerId.current = null;
      setOpenViewerId(null);
      target.replaceChildren();
    };
  }, [api, connectionId, fixedDisplay, job, gen, errorLine]);

  // Tunnel counters and SSH round trip, once a second.
  useEffect(() => {
    let prev: ByteCounters | null = null;
    const t = setInterval(async () => {
      if (!viewerId.current || document.visibilityState !== 'visible') return;
      try {
        // Video mode's Auto and bitrate follow the link: they need the round trip of this second.
        const cur = await api.invoke('viewer.stats', { viewerId: viewerId.current, measureRtt: prefsRef.current.codec !== 'vnc' });
        videoMode.current?.noteRtt(cur.rttMs);
        const r = tunnelRate(prev, cur);
        prev = cur;
        setTunnel(r);
        setTunnelHistory((h) => [...h, r.inPerSec].slice(-60));
      } catch {
        /* viewer closed between ticks */
      }
    }, 1000);
    return () => clearInterval(t);
  }, [api]);

  const update = (p: ViewerPrefs) => {
    setPrefs(p);
    session.current?.applyPrefs(p);
    videoMode.current?.setCodec(p.codec, p.videoMinKbps, p.videoMaxKbps);
    if (session.current) setLive(session.current.currentQuality);
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
    : phase === 'lost' || phase === 'disconnected' ? { title: everConnected.current ? t('overlay.lost') : t('overlay.neverConnected'), text: why ?? t('overlay.unreachable') }
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
      {job && <JobViewerBar job={jobView} route={jobRoute} />}
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
        <div className={`screen-host scale-${prefs.scale} last-picture`} ref={lastRef} data-testid="last-picture" aria-hidden />
        <div className={`screen-host scale-${prefs.scale}`} ref={screenRef} data-testid="vnc-screen" />
        {overlay && (
          <div className="viewer-overlay" role={phase === 'lost' || jobEnded ? 'alert' : 'status'} data-testid={jobEnded ? 'job-ended' : undefined}>
            <h2>{overlay.title}</h2>
            <p>{overlay.text}</p>
            {(phase === 'lost' || phase === 'disconnected') && !jobEnded && <button className="primary" onClick={() => { retries.current = 0; setPhase('opening'); setWhy(null); setGen((g) => g + 1); }}>{t('overlay.reconnect')}</button>}
          </div>
        )}
        {askPassword && (
          <form className="viewer-overlay" aria-label={t('password.aria')} onSubmit={(e) => { e.preventDefault(); session.current?.sendPassword(vncPassword); setVncPassword(''); setAskPassword(false); }}>
            <h2>{t('password.title')}</h2>
            <p>{t('password.text')}</p>
            <input type="password" aria-label={t('password.aria')} value={vncPassword} onChange={(e) => setVncPassword(e.target.value)} autoFocus />
            <label className="check"><input type="checkbox" checked={prefs.viewOnly} onChange={(e) => update({ ...prefs, viewOnly: e.target.checked })} /> {t('password.viewOnly')}</label>
            <div className="actions"><button type="button" onClick={() => { setAskPassword(false); session.current?.close(); setPhase('lost'); setWhy(t('password.none')); }}>{t('common:actions.cancel')}</button><button type="submit" className="primary">{t('password.connect')}</button></div>
          </form>
        )}
        {prefs.showHud && <Hud history={history} tunnel={tunnel} tunnelHistory={tunnelHistory} video={video} viewerId={openViewerId} renderGpu={renderGpu} />}
        {clip.note && <p className="video-fallback clip-note" role="status" data-testid="clip-note" data-n={clip.note.n}>{clip.note.text}</p>}
        {video?.fallback && phase === 'connected' && <p className="video-fallback" role="status" data-testid="video-fallback">{t('videoFallback', { reason: video.fallback })}</p>}
        {panel === 'codec' && <CodecPanel prefs={prefs} turbo={turbo} h264={h264} live={live} video={video} onChange={update} onClose={() => setPanel(null)} />}
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
            <label>{t('clip.remote')}<textarea readOnly value={remoteClip} rows={3} /></label>
            <button onClick={() => navigator.clipboard?.writeText(remoteClip).catch(() => {})} disabled={!remoteClip}>{t('clip.copy')}</button>
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

/**
 * A dropped viewer's picture stays on screen, under the reconnecting overlay, instead of a black
 * box (TurboVNC Viewer keeps its last frame too): noVNC takes its screen element out of the page on
 * disconnect, with its canvas and pixels intact and its input handlers gone; it goes in `holder`.
 */
function keepLastPicture(s: ViewerSession, holder: HTMLDivElement | null): void {
  const screen = screenElement(s.rfb);
  if (holder && screen) holder.replaceChildren(screen);
}
