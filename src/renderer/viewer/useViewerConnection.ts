import { useEffect, useRef, useState, type MutableRefObject, type RefObject } from 'react';
import type RFB from '@novnc/novnc';
import { useTranslation } from 'react-i18next';
import type { ConnectionView, ViewerPrefs } from '../../shared/models';
import { FORWARD_REFUSED_CLOSE } from '../../shared/viewerClose';
import { useApi } from '../app/api';
import { useErrorLine } from '../i18n/errors';
import { jobRouteOf, type JobRoute } from '../cluster/JobViewerBar';
import { ViewerSession, type ViewerState } from './rfbSession';
import { patchedNoVnc } from './patchedNoVnc';
import { screenElement } from './rfbPatches';
import { takeViewerTicket } from './ticketPrefetch';
import { VideoMode, type VideoView } from './video/videoMode';
import { sessionPlayers } from './video/videoPlayer';
import { fromServerClipboard } from './serverClipboard';
import type { ViewerSample } from './stats';

export type ViewerPhase = 'opening' | ViewerState | 'reconnecting' | 'lost';

const MAX_RETRIES = 20;

declare global {
  interface Window {
    /** The live viewer, for the benchmark's key-to-screen probe (debug pages only). */
    __gpuDeskViewer?: ViewerSession;
  }
}

export interface ViewerConnection {
  /** Where the viewer draws, and where the last picture of one that dropped stays until the next one draws. */
  screenRef: RefObject<HTMLDivElement | null>;
  lastRef: RefObject<HTMLDivElement | null>;
  session: MutableRefObject<ViewerSession | null>;
  videoMode: MutableRefObject<VideoMode | null>;
  viewerId: MutableRefObject<string | null>;
  /** The open viewer's id as state: the HUD's GPU panel asks for figures by it. */
  openViewerId: string | null;
  phase: ViewerPhase;
  why: string | null;
  /** A desktop that never answered is not a "lost" connection: the overlay says which it was. */
  everConnected: boolean;
  video: VideoView | null;
  history: ViewerSample[];
  remoteClip: string;
  live: { quality: number; compression: number };
  turbo: boolean;
  jobRoute: JobRoute | null;
  askPassword: boolean;
  /** New preferences onto the open viewer and its video mode, live. */
  applyPrefs(p: ViewerPrefs): void;
  /** The overlay's Reconnect: a new viewer, with the retries counted from zero. */
  reconnect(): void;
  /** The password the person typed, or null for Cancel (then the viewer is lost). */
  answerPassword(password: string | null): void;
}

/**
 * The viewer's connection: a ticket (clusters.viewer for a job, else a prefetched or new viewer.open),
 * its RFB session and video mode, and the retries after a drop. One viewer per attempt.
 */
export function useViewerConnection(o: {
  connectionId: string;
  /** The server's display; null with `job` (the job's route says it). */
  display: number | null;
  job?: string;
  sshState?: ConnectionView['state'];
  jobEnded: boolean;
  prefs: ViewerPrefs;
  /** Multi-screen layouts onto each new viewer (useScreensChoice). */
  attachScreens: (rfb: RFB) => void;
  /** Told when the server's copy went onto the desk's clipboard (useClipboardSync). */
  deskGotText: (text: string) => void;
}): ViewerConnection {
  const { connectionId, display: fixedDisplay, job } = o;
  const api = useApi();
  const { t } = useTranslation(['viewer', 'common']);
  const errorLine = useErrorLine();
  const tRef = useRef(t);
  tRef.current = t;
  const screenRef = useRef<HTMLDivElement>(null);
  // The last picture of a viewer that dropped, kept under the next one until that one draws.
  const lastRef = useRef<HTMLDivElement>(null);
  const session = useRef<ViewerSession | null>(null);
  const videoMode = useRef<VideoMode | null>(null);
  const [video, setVideo] = useState<VideoView | null>(null);
  const viewerId = useRef<string | null>(null);
  const [openViewerId, setOpenViewerId] = useState<string | null>(null);
  const [phase, setPhase] = useState<ViewerPhase>('opening');
  const [why, setWhy] = useState<string | null>(null);
  const prefsRef = useRef(o.prefs);
  prefsRef.current = o.prefs;
  const [history, setHistory] = useState<ViewerSample[]>([]);
  const [remoteClip, setRemoteClip] = useState('');
  const [live, setLive] = useState({ quality: o.prefs.quality, compression: o.prefs.compression });
  const [turbo, setTurbo] = useState(false);
  const [askPassword, setAskPassword] = useState(false);
  const [gen, setGen] = useState(0);
  const retries = useRef(0);
  const everConnected = useRef(false);
  const sshStateRef = useRef(o.sshState);
  sshStateRef.current = o.sshState;
  const jobEndedRef = useRef(o.jobEnded);
  jobEndedRef.current = o.jobEnded;
  const [jobRoute, setJobRoute] = useState<JobRoute | null>(null);
  const attachScreens = useRef(o.attachScreens);
  attachScreens.current = o.attachScreens;
  const deskGotText = useRef(o.deskGotText);
  deskGotText.current = o.deskGotText;

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
          if (c.copy) navigator.clipboard?.writeText(text).then(() => deskGotText.current(text), () => {});
        },
        onQualityChange: (quality, compression) => setLive({ quality, compression }),
        onCredentialsRequired: () => { if (!cancelled) setAskPassword(true); },
        fetchPassword: async () => (await api.invoke('viewer.password', { viewerId: ticket.viewerId })).password,
      }, patchedNoVnc);
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

  return {
    screenRef,
    lastRef,
    session,
    videoMode,
    viewerId,
    openViewerId,
    phase,
    why,
    everConnected: everConnected.current,
    video,
    history,
    remoteClip,
    live,
    turbo,
    jobRoute,
    askPassword,
    applyPrefs: (p) => {
      session.current?.applyPrefs(p);
      videoMode.current?.setCodec(p.codec, p.videoMinKbps, p.videoMaxKbps);
      if (session.current) setLive(session.current.currentQuality);
    },
    reconnect: () => { retries.current = 0; setPhase('opening'); setWhy(null); setGen((g) => g + 1); },
    answerPassword: (password) => {
      setAskPassword(false);
      if (password !== null) { session.current?.sendPassword(password); return; }
      session.current?.close();
      setPhase('lost');
      setWhy(t('password.none'));
    },
  };
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
