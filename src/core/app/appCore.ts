import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import type { SFTPWrapper } from 'ssh2';
import { GpuDeskError, redactSecrets, registerSecret, toErrorValue } from '../errors';
import { connectSsh, type SshConnection } from '../ssh/connection';
import type { ConnectOptions, ConnectionStateEvent, KeySource } from '../ssh/types';
import { TunnelManager } from '../tunnels/tunnelManager';
import type { ProfileStore } from '../profiles/profileStore';
import type { SecretStore } from '../keychain/secretStore';
import type { KeyStore } from '../keychain/keyStore';
import { keychainKeySource } from '../keychain/keySource';
import { installAndVerify, removePublicKeyFromServer } from '../keychain/installKey';
import { forgetPassword, savedPassword, savePassword } from '../keychain/passwords';
import { passwordLoginOffCommands } from '../keychain/passwordLoginOff';
import { exportProfilesToFile, importProfilesFromFile } from '../profiles/exchange';
import type { FileDialogs } from './fileDialogs';
import type { ChannelHub } from '../vnc/channelHub';
import type { ChannelCounters } from '../vnc/pipe';
import { openSpeakingFirst, RFB_38_CLIENT_VERSION } from '../vnc/rfbEarly';
import { endpointInListing, type SessionEndpoint } from '../remote/vncSessions';
import type { VncSessionInfo } from '../remote/types';
import type { Emit, Handlers, ParsedInput } from '../../shared/contract';
import type { AppSettings, ClusterJobView, ClusterViewerTicket, ConnectionView, ForwardSpec, ForwardView, KeyInstallView, KeyRemoveView, KeyView, Profile, SavedTunnelView, SettingsView, TunnelView, VncFlavor } from '../../shared/models';
import { ClusterJobs, type LoginNode } from './clusterJobs';
import { JobRecords } from './jobRecords';
import { parseSlurmDuration } from '../cluster/slurmParsers';
import { openJobTunnel, runningDesktopJob, type JobTunnel } from '../cluster/jobTunnel';
import { FileTransfers } from './fileTransfers';
import { PromptBroker } from './prompts';
import type { RemoteOps } from './remoteOps';
import { inviteToWatch } from './invites';
import { gpuView, keyView, planView, progressView, reportView, resultView, sessionView } from './views';
import { probeHttp, probeLocalHttp, viewerCommands } from './tunnelInfo';
import { importSshConfigHosts, listSshConfigHosts } from './sshConfigImport';
import { escapeServerText } from '../serverText';
import { loadSettings, saveSettings } from './settingsFile';
import { VideoStreams, type VideoTarget } from './videoStreams';
import { encoderChoice } from '../video/encoderCheck';
import { probeVideo } from '../remote/probe';

export interface AppCoreDeps {
  profiles: ProfileStore;
  /** The app's own known-hosts file (accepted keys are saved there, never in ~/.ssh). */
  knownHostsFile: string;
  hub: ChannelHub;
  /** ws://127.0.0.1:port the hub is reachable at from the window. */
  channelBase(): string;
  emit: Emit;
  remote: RemoteOps;
  shell: 'electron' | 'harness';
  version: string;
  /** settings.json: the language and the shell's preferences. */
  settingsFile: string;
  /** desktop-jobs.json: the desktop jobs this app submitted (ids and times), offered again at start. */
  jobRecordsFile?: string;
  /** The OS's preferred locales where the shell knows them (Electron); the harness leaves it to the browser. */
  systemLocales?(): string[];
  secrets?: SecretStore;
  /** Keys kept in the OS keychain, for profiles with auth kind keychain-key. */
  keychainKeySource?(keyName: string): KeySource;
  /** The Keys screen's store (the same one the CLI's "gpu-desk keys" uses). */
  keys?: KeyStore;
  /** Native file dialogs (Electron) or the harness's stand-in. */
  dialogs?: FileDialogs;
  sshConfigPath?: string | null;
  userKnownHostsFiles?: string[];
  openExternal?(url: string): Promise<void>;
  /** A folder to save downloads into (main: a native dialog; the harness: its stand-in). */
  chooseSaveFolder?(): Promise<string | null>;
  log?(line: string): void;
}

interface Live {
  id: string;
  profile: Profile;
  label: string;
  conn: SshConnection | null;
  /** How conn was made: a job's node is reached with the same settings, through conn. */
  options: ConnectOptions | null;
  state: ConnectionView['state'];
  error: ConnectionView['error'];
  tunnels: TunnelManager | null;
  flavor: VncFlavor;
  /** Display → the password the session was started with (memory only; OTPs are used once), registered until `release`. */
  vncPasswords: Map<number, { password: string; once: boolean; release: () => void }>;
  /** Answers typed into this connection's keyboard-interactive prompts: short ones are redacted only in its own lines. */
  typed: string[];
  forwardTunnels: Map<string, string[]>;
  /** Tunnel-only mode to a job's desktop (tunnel id → it), each over its own link to the node. */
  jobTunnels: Map<string, JobTunnel & { jobId: string; release: () => void }>;
  /** Forwards opened on their own or beside the viewer (tunnel id → HTTP state). */
  forwards: Map<string, { http: ForwardView['http'] }>;
  /** One SFTP session per link; a reconnect starts a new one. */
  sftp: Promise<SFTPWrapper> | null;
  /** "hop fingerprint" of host keys the person accepted for this connection: the key-only proving login trusts them too. */
  accepted: Set<string>;
  /** This account's sessions as the probe or the desktops list last saw them (openViewer uses a fresh one). */
  listed?: { at: number; sessions: VncSessionInfo[] };
}

/** The longest a viewer's round-trip probe waits (video mode's link signal). */
const RTT_PROBE_MS = 3000;

/** How long a listing stands for where a session is reached: about the time from seeing it to clicking it. */
const LISTING_FRESH_MS = 60_000;

/** A profile's password for one connection: the remembered one (tried first) and what the person typed. */
interface PasswordState {
  saved?: string;
  typed?: string;
}

interface Viewer {
  id: string;
  connectionId: string;
  display: number;
  counters: ChannelCounters;
  /** Drops the redaction of the viewer's one-time password: it is spent once the viewer closes. */
  release: () => void;
  /** A one-time password still being fetched when the ticket went out (ViewerTicket.passwordLater). */
  password?: Promise<string | null>;
  /** For a job's desktop: the Slurm job. */
  jobId?: string;
}

/**
 * The app's services behind each contract method, free of Electron: the Electron main process and
 * the browser harness both route the same contract into one of these.
 */
export class AppCore {
  private readonly live = new Map<string, Live>();
  private readonly viewers = new Map<string, Viewer>();
  /** "profileId:display" → where that desktop was last found (memory only; see openViewer). */
  private readonly endpoints = new Map<string, SessionEndpoint>();
  private readonly clusters: ClusterJobs;
  readonly prompts: PromptBroker;
  private readonly log: (line: string) => void;
  private readonly files: FileTransfers;
  private readonly jobRecords: JobRecords | null;
  private readonly video: VideoStreams;

  constructor(private readonly deps: AppCoreDeps) {
    this.log = deps.log ?? (() => {});
    this.files = new FileTransfers({ sftp: (id) => this.sftpFor(id), emit: deps.emit, chooseSaveFolder: deps.chooseSaveFolder });
    this.jobRecords = deps.jobRecordsFile ? new JobRecords(deps.jobRecordsFile) : null;
    // Every job status passes here on its way to the window: an ended job's record goes with it.
    const emit: Emit = (name, payload) => {
      const job = name === 'clusters.job' ? (payload as ClusterJobView) : null;
      if (job?.phase === 'ended') {
        const profileId = this.live.get(job.connectionId)?.profile.id;
        if (profileId) this.records((r) => r.remove(profileId, job.jobId));
      }
      deps.emit(name, payload);
    };
    this.clusters = new ClusterJobs(emit, this.log);
    this.video = new VideoStreams({
      hub: deps.hub,
      channelBase: () => deps.channelBase(),
      target: (viewerId) => this.videoTarget(viewerId),
      encoders: async (session) => encoderChoice(await probeVideo(session as SshConnection)),
      log: this.log,
    });
    this.prompts = new PromptBroker(
      (req) => deps.emit('prompt', req),
      (promptId) => deps.emit('prompt.cancel', { promptId }),
    );
  }

  handlers(): Handlers {
    return {
      'app.info': async () => ({ version: this.deps.version, shell: this.deps.shell, platform: process.platform }),
      'app.openExternal': async ({ url }) => {
        if (!this.deps.openExternal) throw new GpuDeskError('BAD_ARGUMENT', 'Opening a browser is not available here', `open ${url} yourself`);
        await this.deps.openExternal(url);
      },
      'settings.get': async () => this.settingsView(loadSettings(this.deps.settingsFile)),
      'settings.set': async (change) => {
        const next = { ...loadSettings(this.deps.settingsFile), ...definedOnly(change) };
        saveSettings(this.deps.settingsFile, next);
        const view = this.settingsView(next);
        this.deps.emit('settings.changed', view);
        return view;
      },
      'profiles.list': async () => (await this.deps.profiles.list()) as Profile[],
      'profiles.save': (i) => this.saveProfile(i),
      'profiles.remove': async ({ id }) => {
        const p = await this.profileById(id);
        // A removed server is disconnected too: nothing stays open for a profile the user cannot see.
        for (const l of [...this.live.values()]) if (l.profile.id === id) await this.close(l.id);
        // Its secrets go first: a keychain that refuses leaves the profile listed, so nothing is orphaned unseen.
        if (this.deps.secrets) await forgetPassword(this.deps.secrets, p.id);
        await this.deps.profiles.remove(p.name);
        this.records((r) => r.forgetProfile(p.id));
      },
      'profiles.exportFile': async () => {
        const file = await this.dialogs().saveFile({ purpose: 'profiles', defaultName: 'gpu-desk-profiles.json' });
        if (!file) return null;
        const doc = await exportProfilesToFile(this.deps.profiles, file);
        return { file: path.basename(file), count: doc.profiles.length };
      },
      'profiles.importFile': async ({ replace }) => {
        const file = await this.dialogs().openFile({ purpose: 'profiles' });
        if (!file) return null;
        const r = await importProfilesFromFile(this.deps.profiles, file, { replace });
        return { file: path.basename(file), added: r.added.map((p) => p.name), replaced: r.replaced.map((p) => p.name), skipped: r.skipped.map((x) => `${x.name}: ${x.reason}`), warnings: r.warnings };
      },
      'keys.list': async () => (await this.keyStore().list()).map(keyView),
      'keys.generate': async ({ name }) => keyView(await this.keyStore().generate(name)),
      'keys.importFile': (i) => this.importKeyFile(i.name),
      'keys.remove': (i) => this.removeKey(i),
      'keys.install': (i) => this.installKey(i),
      'profiles.sshConfigHosts': async () => listSshConfigHosts(this.deps.profiles, this.deps.sshConfigPath ?? undefined),
      'profiles.importSshConfig': async ({ aliases }) => importSshConfigHosts(this.deps.profiles, aliases, this.deps.sshConfigPath ?? undefined),
      'connections.list': async () => [...this.live.values()].map((l) => this.view(l)),
      'connections.open': ({ profileId }) => this.open(profileId),
      'connections.close': ({ connectionId }) => this.close(connectionId),
      'prompts.answer': async ({ promptId, answer }) => this.prompts.answer(promptId, answer),
      'server.probe': async ({ connectionId }) => {
        const l = this.ready(connectionId);
        const r = await this.deps.remote.probe(l.conn!);
        l.flavor = r.vnc.flavor;
        l.listed = { at: Date.now(), sessions: r.sessions };
        return reportView(r);
      },
      'server.gpus': async ({ connectionId }) => ({ at: Date.now(), gpus: (await this.deps.remote.gpus(this.ready(connectionId).conn!)).map(gpuView) }),
      'sessions.list': async ({ connectionId }) => {
        const l = this.ready(connectionId);
        const sessions = await this.deps.remote.listSessions(l.conn!);
        l.listed = { at: Date.now(), sessions };
        return sessions.map(sessionView);
      },
      'sessions.start': async ({ connectionId, display, geometry, windowManager, transport }) => {
        const l = this.ready(connectionId);
        l.listed = undefined;
        const s = await this.deps.remote.startSession(l.conn!, { display, geometry, windowManager, transport });
        this.endpoints.delete(`${l.profile.id}:${s.display}`);
        l.flavor = s.flavor;
        if (s.password) {
          l.vncPasswords.get(s.display)?.release();
          l.vncPasswords.set(s.display, { password: s.password, once: s.passwordKind === 'otp', release: registerSecret(s.password) });
        }
        return sessionView(s);
      },
      'sessions.kill': async ({ connectionId, display }) => {
        const l = this.ready(connectionId);
        for (const v of [...this.viewers.values()]) {
          if (v.connectionId === connectionId && v.display === display) this.closeViewer(v.id);
        }
        l.listed = undefined;
        this.endpoints.delete(`${l.profile.id}:${display}`);
        await this.deps.remote.killSession(l.conn!, display);
        l.vncPasswords.get(display)?.release();
        l.vncPasswords.delete(display);
      },
      'sessions.invite': ({ connectionId, display }) => inviteToWatch(this.ready(connectionId), display),
      'setup.plan': async ({ connectionId, options }) => planView(await this.deps.remote.plan(this.ready(connectionId).conn!, options)),
      'setup.apply': (i) => this.applySetup(i),
      'viewer.open': ({ connectionId, display }) => this.openViewer(connectionId, display),
      'viewer.close': async ({ viewerId }) => this.closeViewer(viewerId),
      'viewer.password': async ({ viewerId }) => {
        const v = this.viewers.get(viewerId);
        if (!v) throw new GpuDeskError('BAD_ARGUMENT', 'That viewer is closed', 'open the session again');
        return { password: (await v.password) ?? null };
      },
      'viewer.stats': async ({ viewerId, measureRtt }) => {
        const v = this.viewers.get(viewerId);
        if (!v) throw new GpuDeskError('BAD_ARGUMENT', 'That viewer is closed', 'open the session again');
        const conn = this.live.get(v.connectionId)?.conn ?? null;
        // A fresh round trip shows a queue building on the link within a second (keepalives come every 15 s).
        // A probe that times out says the round trip is at least that long (a full queue), not the last keepalive's figure.
        const rttMs = conn && measureRtt ? await conn.measureRtt(RTT_PROBE_MS).catch((e: GpuDeskError) => (e.code === 'CONNECT_TIMEOUT' ? RTT_PROBE_MS : conn.rttMs)) : (conn?.rttMs ?? null);
        return { bytesIn: v.counters.bytesIn, bytesOut: v.counters.bytesOut, rttMs, at: Date.now() };
      },
      'clusters.defaults': async ({ connectionId }) => this.clusters.defaults(this.loginNode(connectionId)),
      'clusters.script': async ({ profileId }) => this.clusters.script(await this.profileById(profileId)),
      'clusters.submit': async ({ connectionId }) => {
        const login = this.loginNode(connectionId);
        // The job settings as saved now: the user may have edited them while connected.
        const profile = await this.profileById(login.profile.id);
        const job = await this.clusters.submit(connectionId, { ...login, profile });
        const limit = profile.job?.time ? parseSlurmDuration(profile.job.time) : null;
        this.records((r) => r.add({ profileId: profile.id, jobId: job.jobId, submittedAt: Date.now(), timeLimitSec: job.timeLimitSec ?? limit }));
        return job;
      },
      'clusters.jobs': async ({ connectionId }) => {
        const login = this.loginNode(connectionId);
        const jobs = await this.clusters.list(connectionId, login);
        this.records((r) => r.keepOnly(login.profile.id, jobs.map((j) => j.jobId)));
        return jobs;
      },
      'clusters.remembered': async () => {
        const ids = new Set(((await this.deps.profiles.list()) as Profile[]).map((p) => p.id));
        return this.records((r) => r.list().filter((x) => ids.has(x.profileId))) ?? [];
      },
      'clusters.cancel': async ({ connectionId, jobId }) => {
        for (const v of [...this.viewers.values()]) if (v.jobId === jobId) this.closeViewer(v.id);
        await this.clusters.cancel(this.loginNode(connectionId), jobId);
      },
      'clusters.viewer': ({ connectionId, jobId }) => this.openJobViewer(connectionId, jobId),
      'tunnels.list': async () => this.tunnelViews(),
      'tunnels.open': (i) => this.openTunnel(i),
      'tunnels.close': async ({ tunnelId }) => {
        for (const l of this.live.values()) {
          const jt = l.jobTunnels.get(tunnelId);
          if (jt) await this.closeJobTunnel(l, tunnelId, jt);
          const t = l.tunnels?.get(tunnelId);
          if (!t) continue;
          for (const fid of l.forwardTunnels.get(tunnelId) ?? []) await l.tunnels!.close(fid);
          l.forwardTunnels.delete(tunnelId);
          await l.tunnels!.close(tunnelId);
        }
        this.deps.emit('tunnels.changed', await this.tunnelViews());
      },
      'tunnels.openSaved': ({ profileId, jobId }) => this.openSaved(profileId, jobId),
      'forwards.list': async () => this.forwardViews(),
      'forwards.open': ({ connectionId, forwards }) => this.openForwards(connectionId, forwards),
      'forwards.check': async ({ forwardId }) => {
        const [l, f] = this.forwardById(forwardId);
        await this.checkForward(l, forwardId, f);
        return this.forwardViews().find((v) => v.id === forwardId)!;
      },
      'forwards.close': async ({ forwardId }) => {
        const [l] = this.forwardById(forwardId);
        l.forwards.delete(forwardId);
        await l.tunnels?.close(forwardId);
        this.deps.emit('forwards.changed', this.forwardViews());
      },
      ...this.files.handlers(),
      ...this.video.handlers(),
    };
  }

  private videoTarget(viewerId: string): VideoTarget {
    const v = this.viewers.get(viewerId);
    if (!v) throw new GpuDeskError('BAD_ARGUMENT', 'That viewer is closed', 'open the session again');
    if (v.jobId) {
      const link = this.clusters.openLink(v.jobId);
      return link?.node
        ? { session: link.node, display: v.display, machine: `job:${v.jobId}` }
        : { session: null, display: v.display, machine: `job:${v.jobId}`, whyNot: 'the job\'s desktop is reached through a login-node forward, with no shell on its node' };
    }
    return { session: this.ready(v.connectionId).conn!, display: v.display, machine: v.connectionId };
  }

  /** The job records are a convenience: a file that cannot be written is logged, never a failed request. */
  private records<T>(f: (r: JobRecords) => T): T | undefined {
    if (!this.jobRecords) return undefined;
    try {
      return f(this.jobRecords);
    } catch (e) {
      this.log(`desktop job records: ${toErrorValue(e).message}`);
      return undefined;
    }
  }

  private settingsView(s: AppSettings): SettingsView {
    return { ...s, systemLocales: this.deps.systemLocales?.() ?? [] };
  }

  private sftpFor(connectionId: string): Promise<SFTPWrapper> {
    const l = this.ready(connectionId);
    if (!l.sftp) {
      const p = l.conn!.sftp();
      l.sftp = p;
      p.then(
        (s) => s.once('close', () => { if (l.sftp === p) l.sftp = null; }),
        () => { if (l.sftp === p) l.sftp = null; },
      );
    }
    return l.sftp;
  }

  private forwardById(forwardId: string): [Live, { http: ForwardView['http'] }] {
    for (const l of this.live.values()) {
      const f = l.forwards.get(forwardId);
      if (f) return [l, f];
    }
    throw new GpuDeskError('BAD_ARGUMENT', 'That forward is closed', 'open the server\'s forwards again');
  }

  private forwardViews(): ForwardView[] {
    const out: ForwardView[] = [];
    for (const l of this.live.values()) {
      for (const [id, f] of l.forwards) {
        const info = l.tunnels?.get(id)?.info;
        if (!info) continue;
        out.push({
          id,
          connectionId: l.id,
          localHost: info.localHost,
          localPort: info.localPort,
          remoteHost: info.remoteHost,
          remotePort: info.remotePort,
          http: f.http,
          url: f.http === 'yes' ? `http://127.0.0.1:${info.localPort}/` : null,
        });
      }
    }
    return out;
  }

  private async checkForward(l: Live, id: string, f: { http: ForwardView['http'] }): Promise<void> {
    const info = l.tunnels?.get(id)?.info;
    if (!info) return;
    f.http = 'checking';
    this.deps.emit('forwards.changed', this.forwardViews());
    f.http = (await probeLocalHttp(info.localPort)) ? 'yes' : 'no';
    this.deps.emit('forwards.changed', this.forwardViews());
  }

  private async openForwards(connectionId: string, specs?: ForwardSpec[]): Promise<ForwardView[]> {
    const l = this.ready(connectionId);
    const wanted = specs ?? l.profile.forwards;
    const ids: string[] = [];
    const opened: string[] = [];
    try {
      for (const spec of wanted) {
        const same = [...l.forwards.keys()].find((id) => {
          const i = l.tunnels!.get(id)?.info;
          return i && i.remoteHost === spec.remoteHost && i.remotePort === spec.remotePort && (spec.localPort === 0 || i.localPort === spec.localPort);
        });
        if (same) {
          ids.push(same);
          continue;
        }
        const info = await l.tunnels!.openForward({ localPort: spec.localPort, remoteHost: spec.remoteHost, remotePort: spec.remotePort });
        l.forwards.set(info.id, { http: 'checking' });
        ids.push(info.id);
        opened.push(info.id);
      }
    } catch (e) {
      for (const id of opened) {
        l.forwards.delete(id);
        await l.tunnels!.close(id);
      }
      throw e;
    }
    this.deps.emit('forwards.changed', this.forwardViews());
    await Promise.all(ids.map((id) => this.checkForward(l, id, l.forwards.get(id)!)));
    return this.forwardViews().filter((v) => ids.includes(v.id));
  }

  /**
   * Tunnel-only mode from the tray: the saved display (else the first running desktop) and the saved
   * forwards; for a cluster, the desktop of the user's running job (the one, or the one asked for).
   */
  private async openSaved(profileId: string, jobId?: string): Promise<SavedTunnelView> {
    const view = await this.open(profileId);
    const l = this.live.get(view.id)!;
    if (l.state !== 'ready') await l.conn?.whenReady(120_000);
    if (l.profile.kind === 'cluster') return this.openJobTunnel(l, jobId);
    if (jobId !== undefined) throw new GpuDeskError('NOT_A_CLUSTER', `"${l.profile.name}" is a server profile, not a cluster: it has no jobs`, 'open its tunnel without a job');
    let display = l.profile.display.number;
    if (display === undefined) {
      const sessions = await this.deps.remote.listSessions(l.conn!);
      if (!sessions.length) throw new GpuDeskError('VNC_SESSION_FAILED', `No desktop is running on ${l.label}`, 'start one from the server page (Desktops), then open the tunnel again');
      display = sessions[0].display;
    }
    const existing = (await this.tunnelViews()).find((t) => t.connectionId === l.id && t.display === display);
    if (existing) return existing;
    return this.openTunnel({ connectionId: l.id, display, forwards: [] }).then(async (t) => {
      if (l.profile.forwards.length) await this.openForwards(l.id);
      return t;
    });
  }

  /** The same tunnel-only mode as `gpu-desk tunnel <cluster> --job ID`, with a one-time password for the viewer. */
  private async openJobTunnel(l: Live, jobId?: string): Promise<SavedTunnelView> {
    const job = await runningDesktopJob(l.conn!, l.profile.name, jobId);
    let tid = [...l.jobTunnels].find(([, jt]) => jt.jobId === job.jobId)?.[0];
    if (!tid) {
      const jt = await openJobTunnel(l.conn!, l.options!, job.jobId);
      tid = jt.info.id;
      l.jobTunnels.set(tid, { ...jt, jobId: job.jobId, release: () => {} });
      l.forwardTunnels.set(tid, []);
    }
    const jt = l.jobTunnels.get(tid)!;
    let otp: string;
    try {
      otp = await jt.link.oneTimePassword();
    } catch (e) {
      await this.closeJobTunnel(l, tid, jt);
      throw e;
    }
    // Shown to the person for their viewer; kept out of logs and errors while the tunnel is open.
    const release = registerSecret(otp);
    const before = jt.release;
    jt.release = () => { before(); release(); };
    const views = await this.tunnelViews();
    this.deps.emit('tunnels.changed', views);
    return { ...views.find((v) => v.id === tid)!, oneTimePassword: otp };
  }

  private async closeJobTunnel(l: Live, tunnelId: string, jt: JobTunnel & { release: () => void }): Promise<void> {
    l.jobTunnels.delete(tunnelId);
    l.forwardTunnels.delete(tunnelId);
    jt.release();
    await jt.close();
  }

  private async saveProfile({ profile }: ParsedInput<'profiles.save'>): Promise<Profile> {
    const { id, ...fields } = profile;
    if (!id) return (await this.deps.profiles.add(fields)) as Profile;
    const existing = await this.profileById(id);
    const saved = (await this.deps.profiles.edit(existing.name, fields)) as Profile;
    // "Remember" unticked (or another sign-in chosen): the keychain entry has no owner any more.
    const stillRemembered = saved.auth.kind === 'password' && saved.auth.remember;
    if (!stillRemembered && existing.auth.kind === 'password' && existing.auth.remember && this.deps.secrets) await forgetPassword(this.deps.secrets, id);
    return saved;
  }

  private async profileById(id: string): Promise<Profile> {
    const p = ((await this.deps.profiles.list()) as Profile[]).find((x) => x.id === id);
    if (!p) throw new GpuDeskError('PROFILE_NOT_FOUND', 'That server profile no longer exists', 'reload the server list');
    return p;
  }

  private view(l: Live): ConnectionView {
    return { id: l.id, profileId: l.profile.id, label: l.label, state: l.state, rttMs: l.conn?.rttMs ?? null, error: l.error };
  }

  private ready(connectionId: string): Live {
    const l = this.live.get(connectionId);
    if (!l || !l.conn) throw new GpuDeskError('NOT_CONNECTED', 'Not connected to that server', 'connect from the server list first');
    if (l.state !== 'ready') throw new GpuDeskError('NOT_CONNECTED', `The connection to ${l.label} is ${l.state}`, 'wait for it to come back, or reconnect');
    return l;
  }

  private async connectOptions(p: Profile, l: Live, pw: PasswordState): Promise<ConnectOptions> {
    const ask = this.prompts;
    const { id: connectionId, typed } = l;
    const askPassword = async (user: string, host: string): Promise<string | null> => {
      const a = await ask.ask(connectionId, { kind: 'password', user, host });
      const v = a.kind === 'secret' ? remember(a.value) : null;
      if (v !== null) pw.typed = v;
      return v;
    };
    const opts: ConnectOptions = {
      destination: p.user ? `${p.user}@${p.host}` : p.host,
      port: p.port,
      ...(p.jumpHosts.length ? { jump: p.jumpHosts } : {}),
      ...(p.proxyCommand ? { proxyCommand: p.proxyCommand } : {}),
      sshConfigPath: this.deps.sshConfigPath,
      ...(this.deps.userKnownHostsFiles ? { userKnownHostsFiles: this.deps.userKnownHostsFiles } : {}),
      appKnownHostsFile: this.deps.knownHostsFile,
      // A person may take a while to compare a fingerprint; the handshake must wait for them.
      readyTimeoutMs: 120_000,
      reconnect: { enabled: true },
      log: (line) => this.log(redactSecrets(`[${p.name}] ${line}`, typed)),
      callbacks: {
        onUnknownHostKey: async (h) => {
          const a = await ask.ask(connectionId, { kind: 'hostKey', host: h.host, port: h.port, keyType: h.keyType, fingerprint: h.fingerprint, hop: h.hop });
          const decision = a.kind === 'hostKey' ? a.decision : 'reject';
          if (decision !== 'reject') l.accepted.add(`${h.hop} ${h.fingerprint}`);
          return decision;
        },
        askPassphrase: async ({ keyLabel }) => {
          const a = await ask.ask(connectionId, { kind: 'passphrase', keyLabel });
          return a.kind === 'secret' ? remember(a.value) : null;
        },
        askPassword: ({ user, host }) => askPassword(user, host),
        notice: (line) => this.log(redactSecrets(`[${p.name}] ${line}`, typed)),
        banner: (text) => this.log(redactSecrets(`[${p.name}] banner: ${escapeServerText(text.trimEnd())}`, typed)),
        keyboardInteractive: async (kb) => {
          // PAM servers ask for the password as one hidden keyboard-interactive prompt, before the
          // password method: for a password profile it is the same password, remembered or asked
          // (and remembered) as such.
          const q = kb.prompts;
          if (p.auth.kind === 'password' && q.length === 1 && !q[0].echo && /password/i.test(q[0].prompt)) {
            const known = pw.typed ?? pw.saved;
            const v = known ?? (await askPassword(p.user ?? '', p.host));
            return v === null ? null : [v];
          }
          const a = await ask.ask(connectionId, { kind: 'keyboardInteractive', name: kb.name, instructions: kb.instructions, prompts: kb.prompts });
          if (a.kind !== 'answers' || !a.values) return null;
          for (const v of a.values) {
            registerSecret(v);
            typed.push(v);
          }
          return a.values;
        },
      },
    };
    switch (p.auth.kind) {
      case 'auto':
        break;
      case 'agent':
        opts.agent = p.auth.socket ?? true;
        opts.identityFiles = [];
        break;
      case 'key-file':
        opts.agent = false;
        opts.identityFiles = [p.auth.path];
        break;
      case 'keychain-key':
        if (!this.deps.keychainKeySource) throw new GpuDeskError('KEYCHAIN_UNAVAILABLE', 'Keychain keys are not available in this build', 'use a key file or the agent for this server');
        opts.agent = false;
        opts.identityFiles = [];
        opts.keySources = [this.deps.keychainKeySource(p.auth.key)];
        break;
      case 'password': {
        opts.agent = false;
        opts.identityFiles = [];
        const known = pw.typed ?? pw.saved;
        if (known !== undefined) opts.password = known;
        break;
      }
    }
    return opts;
  }

  private async open(profileId: string): Promise<ConnectionView> {
    const profile = await this.profileById(profileId);
    // One live connection per profile: a second "Connect" shows the existing one.
    for (const l of this.live.values()) {
      if (l.profile.id === profileId && l.state !== 'closed') return this.view(l);
    }
    const id = `c${randomBytes(6).toString('hex')}`;
    const label = `${profile.user ? `${profile.user}@` : ''}${profile.host}${profile.port === 22 ? '' : `:${profile.port}`}`;
    const l: Live = { id, profile, label, conn: null, options: null, state: 'connecting', error: null, tunnels: null, flavor: null, vncPasswords: new Map(), typed: [], forwardTunnels: new Map(), jobTunnels: new Map(), forwards: new Map(), sftp: null, accepted: new Set() };
    this.live.set(id, l);
    this.deps.emit('connection.state', this.view(l));
    try {
      const conn = await this.dial(profile, l);
      l.conn = conn;
      l.tunnels = new TunnelManager(conn);
      l.state = 'ready';
      conn.on('state', (ev: ConnectionStateEvent) => {
        l.state = ev.state;
        l.error = ev.reason ? { code: ev.code ?? 'CONNECTION_LOST', message: redactSecrets(ev.reason, l.typed) } : ev.state === 'ready' ? null : l.error;
        if (ev.state === 'closed') this.prompts.cancelFor(id);
        if (ev.state !== 'ready') l.sftp = null;
        this.deps.emit('connection.state', this.view(l));
        // Same local ports after a reconnect; whether the services still answer is asked again.
        if (ev.state === 'ready') for (const [fid, f] of l.forwards) void this.checkForward(l, fid, f);
      });
      this.deps.emit('connection.state', this.view(l));
      return this.view(l);
    } catch (e) {
      l.state = 'closed';
      const err = toErrorValue(e);
      l.error = { ...err, message: redactSecrets(err.message, l.typed) };
      this.prompts.cancelFor(id);
      this.deps.emit('connection.state', this.view(l));
      this.live.delete(id);
      throw e;
    }
  }

  /**
   * Connects as the profile says. A remembered password is tried first; when the server refuses it,
   * the person is asked (once) and what worked replaces it. A password typed for a profile that
   * remembers passwords is saved only after the server accepted it.
   */
  private async dial(profile: Profile, l: Live): Promise<SshConnection> {
    const secrets = this.deps.secrets;
    const remembers = profile.auth.kind === 'password' && profile.auth.remember && secrets !== undefined;
    const pw: PasswordState = {};
    if (remembers) pw.saved = (await savedPassword(secrets!, profile.id)) ?? undefined;
    let conn: SshConnection;
    try {
      l.options = await this.connectOptions(profile, l, pw);
      conn = await connectSsh(l.options);
    } catch (e) {
      if (pw.saved === undefined || (e as GpuDeskError).code !== 'AUTH_FAILED') throw e;
      this.log(`[${profile.name}] the remembered password was refused; asking for it again`);
      pw.saved = undefined;
      pw.typed = undefined;
      l.options = await this.connectOptions(profile, l, pw);
      conn = await connectSsh(l.options);
    }
    if (remembers && pw.typed !== undefined) {
      await savePassword(secrets!, profile.id, pw.typed).catch((e: unknown) => this.log(`[${profile.name}] could not remember the password: ${toErrorValue(e).message}`));
    }
    return conn;
  }

  private dialogs(): FileDialogs {
    if (!this.deps.dialogs) throw new GpuDeskError('BAD_ARGUMENT', 'Choosing files is not available in this window', 'use the command line: gpu-desk profiles export/import, gpu-desk keys import');
    return this.deps.dialogs;
  }

  private keyStore(): KeyStore {
    if (!this.deps.keys) throw new GpuDeskError('KEYCHAIN_UNAVAILABLE', 'Keychain keys are not available in this build', 'use a key file or the agent for this server');
    return this.deps.keys;
  }

  private async importKeyFile(name: string): Promise<KeyView | null> {
    const keys = this.keyStore();
    const file = await this.dialogs().openFile({ purpose: 'key' });
    if (!file) return null;
    // Its own prompt "connection", so the passphrase dialog can be cancelled like any other question.
    const askId = `key-import-${randomBytes(6).toString('hex')}`;
    try {
      const rec = await keys.importFile(name, file, {
        askPassphrase: async ({ attempt }) => {
          const a = await this.prompts.ask(askId, { kind: 'passphrase', keyLabel: `${path.basename(file)}${attempt > 1 ? ' (wrong passphrase, try again)' : ''}` });
          return a.kind === 'secret' ? remember(a.value) : null;
        },
      });
      return keyView(rec);
    } finally {
      this.prompts.cancelFor(askId);
    }
  }

  /** The live connection for a profile, opened (with its usual questions) when there is none. */
  private async liveFor(profileId: string): Promise<Live> {
    const v = await this.open(profileId);
    return this.ready(v.id);
  }

  private async installKey({ name, profileId }: ParsedInput<'keys.install'>): Promise<KeyInstallView> {
    const keys = this.keyStore();
    const publicKey = await keys.publicKey(name);
    const l = await this.liveFor(profileId);
    const server = l.conn!.label;
    const report = await installAndVerify(l.conn!, publicKey, () => this.proveKeyLogin(l, name));
    await keys.noteInstalled(name, server, true);
    let profileSwitched = false;
    if (report.keyLogin.ok) {
      const p = await this.profileById(profileId);
      if (!(p.auth.kind === 'keychain-key' && p.auth.key === name)) await this.deps.profiles.edit(p.name, { auth: { kind: 'keychain-key', key: name } });
      profileSwitched = true;
    }
    return {
      key: name,
      server,
      added: report.added,
      keyLoginOk: report.keyLogin.ok,
      keyLoginError: report.keyLogin.ok ? null : redactSecrets(report.keyLogin.message, l.typed),
      profileSwitched,
      passwordOffCommands: passwordLoginOffCommands(),
    };
  }

  /** A fresh login offering only the keychain key: no agent, no key files, no password, no questions. */
  private async proveKeyLogin(l: Live, name: string): Promise<void> {
    const base = await this.connectOptions(l.profile, l, {});
    const { password: _pw, identityFiles: _ids, callbacks: _cb, ...rest } = base;
    const conn = await connectSsh({
      ...rest,
      agent: false,
      identityFiles: [],
      onlyGivenKeys: true,
      keySources: [keychainKeySource(this.keyStore(), [name])],
      reconnect: { enabled: false },
      callbacks: { onUnknownHostKey: async (h) => (l.accepted.has(`${h.hop} ${h.fingerprint}`) ? 'accept-once' : 'reject') },
    });
    try {
      const r = await conn.exec('true', { timeoutMs: 20_000 });
      if (r.code !== 0) throw new GpuDeskError('REMOTE_COMMAND_FAILED', `logged in, but the server refused to run a command (exit ${r.code})`, "check the account's shell on the server");
    } finally {
      await conn.close();
    }
  }

  private async removeKey({ name, fromProfileId, force }: ParsedInput<'keys.remove'>): Promise<KeyRemoveView> {
    const keys = this.keyStore();
    const rec = await keys.get(name);
    // Refused before the server is touched, so a refusal changes nothing anywhere.
    const users = ((await this.deps.profiles.list()) as Profile[]).filter((p) => p.auth.kind === 'keychain-key' && p.auth.key === name);
    if (users.length && !force) throw new GpuDeskError('BAD_ARGUMENT', `Key "${name}" is used by ${users.map((p) => p.name).join(', ')}`, 'switch those servers to another sign-in first, or remove it with force (they then sign in automatically)');
    let server: KeyRemoveView['server'] = null;
    if (fromProfileId) {
      const l = await this.liveFor(fromProfileId);
      const r = await removePublicKeyFromServer(l.conn!, rec.publicKey);
      server = { label: l.conn!.label, removed: r.removed };
      await keys.noteInstalled(name, l.conn!.label, false);
    }
    const r = await keys.remove(name, { force });
    return { removed: name, profilesChanged: r.profilesChanged, server };
  }

  private async close(connectionId: string): Promise<void> {
    const l = this.live.get(connectionId);
    if (!l) return;
    this.prompts.cancelFor(connectionId);
    for (const v of [...this.viewers.values()]) if (v.connectionId === connectionId) this.closeViewer(v.id);
    await this.files.dropConnection(connectionId);
    await this.clusters.forget(connectionId);
    for (const [tid, jt] of [...l.jobTunnels]) await this.closeJobTunnel(l, tid, jt);
    await l.tunnels?.closeAll();
    l.forwards.clear();
    await l.conn?.close();
    this.video.forgetMachine(connectionId);
    for (const pw of l.vncPasswords.values()) pw.release();
    l.vncPasswords.clear();
    l.state = 'closed';
    this.deps.emit('connection.state', this.view(l));
    this.live.delete(connectionId);
    this.deps.emit('tunnels.changed', await this.tunnelViews());
    this.deps.emit('forwards.changed', this.forwardViews());
  }

  private async applySetup({ connectionId, runId, sudoPassword, options }: ParsedInput<'setup.apply'>) {
    const l = this.ready(connectionId);
    registerSecret(sudoPassword);
    // The plan is made again here, not taken from the window: what runs is what core decides.
    const plan = await this.deps.remote.plan(l.conn!, options);
    const result = await this.deps.remote.apply(l.conn!, plan, {
      sudoPassword,
      onProgress: (p) => this.deps.emit('setup.progress', progressView(runId, p)),
    });
    return resultView(result);
  }

  private async openViewer(connectionId: string, display: number) {
    const l = this.ready(connectionId);
    const conn = l.conn!;
    const key = `${l.profile.id}:${display}`;
    // What the server page just listed is what the person clicked: no second look-up then.
    const listed = l.listed && Date.now() - l.listed.at < LISTING_FRESH_MS && l.listed.sessions.some((x) => x.display === display) ? endpointInListing(l.listed.sessions, display) : null;
    // Else where this profile's display was found last time (a reconnect, Connect again): used at once
    // and looked up again beside the connection; a different answer closes this viewer, whose retry
    // then goes where the server now says.
    const remembered = listed ? null : (this.endpoints.get(key) ?? null);
    const at = listed ?? remembered ?? (await this.deps.remote.endpoint(conn, display));
    this.endpoints.set(key, at);
    const flavor = at.flavor ?? l.flavor;
    const reach = (e: SessionEndpoint): Promise<Duplex> => (e.kind === 'unix' ? conn.forwardOutUnix(e.path) : conn.forwardOut(e.host, e.port));
    // A remembered endpoint is looked up again at once (`confirmed` below); one look-up serves both uses.
    let again: Promise<SessionEndpoint> | null = null;
    const lookUpAgain = () => (again ??= this.deps.remote.endpoint(conn, display));
    // Should the listed or remembered session be gone by the time the stream opens, the display is looked up again.
    const openRaw = listed || remembered ? () => reach(at).catch(async () => reach(await lookUpAgain())) : () => reach(at);
    // A known TurboVNC session: the viewer's version goes first (rfbEarly.ts: TurboVNC waits 100 ms otherwise).
    const speakFirst = at.flavor === 'turbovnc';
    // The stream opens while the one-time password is fetched and the page is told where to connect.
    const ticket = this.deps.hub.register(speakFirst ? () => openSpeakingFirst(openRaw) : openRaw, { eager: true, ...(speakFirst ? { sentForViewer: RFB_38_CLIENT_VERSION } : {}) });
    // A remembered endpoint is not confirmed yet: the session may have ended and another process
    // (another user's, even) taken its port. No password goes out until the look-up beside the
    // connection says the endpoint is still this display's session; a moved one closes the viewer
    // first, so its password is never handed to what now listens there.
    const confirmed = remembered
      ? lookUpAgain().then((now) => {
        this.endpoints.set(key, now);
        if (sameEndpoint(now, remembered)) return 'same' as const;
        if (this.viewers.has(ticket.id)) {
          this.log(`[${l.profile.name}] display :${display} has moved; reconnecting its viewer`);
          this.closeViewer(ticket.id);
        }
        return 'moved' as const;
      }, () => 'unknown' as const)
      : null;
    const gated = (p: Promise<string | null>): Promise<string | null> => {
      if (!confirmed) return p;
      const out = Promise.all([p, confirmed]).then(([v, c]) => {
        if (c === 'moved') throw new GpuDeskError('BAD_ARGUMENT', `That viewer is closed: display :${display} has moved`, 'The viewer reconnects to where the server now says');
        // The server could not say where the display is: the person is asked instead.
        return c === 'same' ? v : null;
      });
      out.catch(() => {});
      return out;
    };
    // A TurboVNC session we did not start, or whose one-time password is spent (every reconnect of the
    // viewer opens it again), gets a fresh one. The ticket does not wait for it: the page connects and
    // asks for it (viewer.password) when the server wants it, so the fetch overlaps the handshake.
    const later = flavor === 'turbovnc' && !l.vncPasswords.has(display) ? heldSecret(this.deps.remote.oneTimePassword(conn, display).catch(() => null)) : null;
    const remotePort = at.kind === 'tcp' ? at.port : null;
    const pw = later ? null : (l.vncPasswords.get(display) ?? null);
    // A one-time password goes with this viewer: registered until it closes, then spent.
    if (pw?.once) l.vncPasswords.delete(display);
    // A stored password for a remembered endpoint waits for the check too (asked for like a late OTP).
    const password = later ? gated(later.value) : pw && confirmed ? gated(Promise.resolve(pw.password)) : null;
    this.viewers.set(ticket.id, { id: ticket.id, connectionId, display, counters: ticket.counters, release: later?.release ?? (pw?.once ? pw.release : () => {}), ...(password ? { password } : {}) });
    return {
      viewerId: ticket.id,
      url: `${this.deps.channelBase()}${ticket.path}`,
      display,
      remotePort,
      remoteSocket: at.kind === 'unix' ? at.path : null,
      flavor,
      vncPassword: password ? null : (pw?.password ?? null),
      passwordLater: password !== null,
    };
  }

  private loginNode(connectionId: string): LoginNode {
    const l = this.ready(connectionId);
    return { conn: l.conn!, options: l.options!, profile: l.profile };
  }

  /**
   * A viewer on a job's desktop: the job said how it is reached (SSH to the node through the login
   * node and the session's socket, else the login node's TCP forward), and the ticket says which and why.
   */
  private async openJobViewer(connectionId: string, jobId: string): Promise<ClusterViewerTicket> {
    const login = this.loginNode(connectionId);
    for (const v of [...this.viewers.values()]) if (v.jobId === jobId) this.closeViewer(v.id);
    const link = await this.clusters.link(login, jobId);
    let otp: string;
    try {
      otp = await link.oneTimePassword();
    } catch (e) {
      await this.clusters.closeLink(jobId);
      throw e;
    }
    const ticket = this.deps.hub.register(() => openSpeakingFirst(() => link.open()), { eager: true, sentForViewer: RFB_38_CLIENT_VERSION });
    this.viewers.set(ticket.id, { id: ticket.id, connectionId, display: link.info.display, counters: ticket.counters, release: registerSecret(otp), jobId });
    return {
      viewerId: ticket.id,
      url: `${this.deps.channelBase()}${ticket.path}`,
      display: link.info.display,
      remotePort: link.mode === 'login-forward' ? link.info.port : null,
      remoteSocket: link.info.socket,
      flavor: 'turbovnc',
      vncPassword: otp,
      jobId,
      node: link.info.node,
      route: link.mode,
      why: link.why,
    };
  }

  private closeViewer(viewerId: string): void {
    this.video.stop(viewerId);
    this.deps.hub.revoke(viewerId);
    const v = this.viewers.get(viewerId);
    v?.release();
    this.viewers.delete(viewerId);
    // The node connection of a job's desktop goes with its viewer.
    if (v?.jobId) void this.clusters.closeLink(v.jobId);
  }

  private async openTunnel({ connectionId, display, localPort, forwards }: ParsedInput<'tunnels.open'>): Promise<TunnelView> {
    const l = this.ready(connectionId);
    const at = await this.deps.remote.endpoint(l.conn!, display);
    const info = await l.tunnels!.openDisplay(display, { localPort, ...(at.kind === 'unix' ? { remoteSocket: at.path } : { remoteHost: at.host }) });
    const fids: string[] = [];
    try {
      for (const f of forwards ?? l.profile.forwards) fids.push((await l.tunnels!.openForward({ localPort: f.localPort, remoteHost: f.remoteHost, remotePort: f.remotePort })).id);
    } catch (e) {
      for (const fid of fids) await l.tunnels!.close(fid);
      await l.tunnels!.close(info.id);
      throw e;
    }
    l.forwardTunnels.set(info.id, fids);
    const views = await this.tunnelViews();
    this.deps.emit('tunnels.changed', views);
    return views.find((v) => v.id === info.id)!;
  }

  private readonly httpCache = new Map<string, boolean>();

  private async tunnelViews(): Promise<TunnelView[]> {
    const out: TunnelView[] = [];
    for (const l of this.live.values()) {
      if (!l.tunnels) continue;
      for (const [tid, fids] of l.forwardTunnels) {
        const jt = l.jobTunnels.get(tid);
        const t = (jt?.tunnels ?? l.tunnels).get(tid);
        if (!t) continue;
        const info = t.info;
        const st = t.stats();
        const forwards = [];
        for (const fid of fids) {
          const f = l.tunnels.get(fid)?.info;
          if (!f) continue;
          const key = `${l.id}:${f.remoteHost}:${f.remotePort}`;
          if (!this.httpCache.has(key) && l.conn && l.state === 'ready') this.httpCache.set(key, await probeHttp(l.conn, f.remoteHost, f.remotePort));
          const http = this.httpCache.get(key) ?? false;
          forwards.push({ kind: 'local' as const, localPort: f.localPort, remoteHost: f.remoteHost, remotePort: f.remotePort, url: http ? `http://127.0.0.1:${f.localPort}/` : null });
        }
        out.push({
          id: tid,
          connectionId: l.id,
          localHost: info.localHost,
          localPort: info.localPort,
          display: info.display ?? info.remotePort - 5900,
          remotePort: info.remotePort,
          ...(info.remoteSocket ? { remoteSocket: info.remoteSocket } : {}),
          ...(jt ? { ...(jt.link.info.socket ? { remoteSocket: jt.link.info.socket } : {}), job: { jobId: jt.jobId, node: jt.link.info.node, route: jt.link.mode } } : {}),
          forwards,
          bytesIn: st.bytesIn,
          bytesOut: st.bytesOut,
          clients: st.openConnections,
          commands: viewerCommands(info.localHost, info.localPort),
        });
      }
    }
    return out;
  }

  async shutdown(): Promise<void> {
    for (const id of [...this.live.keys()]) await this.close(id).catch(() => {});
  }
}

function remember(v: string | null): string | null {
  registerSecret(v);
  return v;
}

/** zod leaves an absent optional field as `undefined`, which must not overwrite a saved value. */
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * A secret still on its way (a one-time password being fetched): registered for redaction once it
 * arrives, and released by `release` whether that comes before or after.
 */
function heldSecret(p: Promise<string | null>): { value: Promise<string | null>; release: () => void } {
  let released = false;
  let drop: (() => void) | null = null;
  const value = p.then((v) => {
    if (v && !released) drop = registerSecret(v);
    return released ? null : v;
  });
  return { value, release: () => { released = true; drop?.(); drop = null; } };
}

function sameEndpoint(a: SessionEndpoint, b: SessionEndpoint): boolean {
  return a.flavor === b.flavor && (a.kind === 'unix' ? b.kind === 'unix' && a.path === b.path : b.kind === 'tcp' && a.host === b.host && a.port === b.port);
}
