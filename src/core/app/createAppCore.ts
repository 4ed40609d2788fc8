import fs from 'node:fs';
import path from 'node:path';
import { appPaths, ensureDir } from '../profiles/appPaths';
import { ProfileStore } from '../profiles/profileStore';
import { createKeytarStore } from '../keychain/keytarStore';
import { KeyStore } from '../keychain/keyStore';
import { keychainKeySource } from '../keychain/keySource';
import type { SecretStore } from '../keychain/secretStore';
import type { KeySource } from '../ssh/types';
import type { ChannelHub } from '../vnc/channelHub';
import type { Emit, Handlers } from '../../shared/contract';
import type { FileDialogs } from './fileDialogs';
import type { DeskDisplay } from '../../shared/models';
import { FileTransfers } from './services/files';
import { PromptBroker } from './prompts';
import { remoteOps, type RemoteOps } from './remoteOps';
import { Clusters } from './services/clusters';
import { Connections } from './services/connections';
import { Forwards } from './services/forwards';
import { HttpChecks } from './services/httpChecks';
import { Keys } from './services/keys';
import { Profiles } from './services/profiles';
import { Servers } from './services/servers';
import { DesktopEndpoints } from './desktopEndpoints';
import { DesktopRuns } from './services/desktopRuns';
import { appHandlers, settingsHandlers } from './services/settings';
import { Tunnels } from './services/tunnels';
import { Viewers } from './services/viewers';
import { ClipboardImages } from './services/clipboardImages';
import { encoderChoice } from '../video/encoderCheck';
import { probeVideo } from '../remote/probe';
import type { SshConnection } from '../ssh/connection';

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
  /** The desk's monitors (main: Electron's screen module); the harness has none to give. */
  displays?(): DeskDisplay[];
  /** A folder to save downloads into (main: a native dialog; the harness: its stand-in). */
  chooseSaveFolder?(): Promise<string | null>;
  log?(line: string): void;
}

/**
 * The app's services behind each contract method, free of Electron: the Electron main process and
 * the browser harness both route the same contract into one of these. Each capability is its own
 * service (./services); this is the one place they are wired to each other.
 */
export class AppCore {
  readonly prompts: PromptBroker;
  private readonly all: Handlers;
  private readonly connections: Connections;

  constructor(deps: AppCoreDeps) {
    const log = deps.log ?? (() => {});
    const { emit, hub, remote } = deps;
    this.prompts = new PromptBroker(
      (req) => emit('prompt', req),
      (promptId) => emit('prompt.cancel', { promptId }),
    );
    // Services that need each other reach them through these late-bound lambdas (all are built below).
    const late = {} as { profiles: Profiles; viewers: Viewers; clusters: Clusters };
    const connections = new Connections({
      emit, prompts: this.prompts, secrets: deps.secrets, log,
      knownHostsFile: deps.knownHostsFile, sshConfigPath: deps.sshConfigPath, userKnownHostsFiles: deps.userKnownHostsFiles, keychainKeySource: deps.keychainKeySource,
      profileById: (id) => late.profiles.byId(id),
    });
    this.connections = connections;
    const ready = (id: string) => connections.ready(id);
    // What each connection owns: every service adds what it opens there, and it all goes when the connection closes.
    const scope = (id: string) => connections.scope(id);
    const profiles = new Profiles({
      store: deps.profiles, emit, secrets: deps.secrets, dialogs: deps.dialogs, sshConfigPath: deps.sshConfigPath,
      closeProfile: (id) => connections.closeProfile(id),
      forgetProfile: (id) => late.clusters.forgetProfile(id),
    });
    // Where each desktop is and its password: one store that the servers and viewers services share.
    const desktops = new DesktopEndpoints({ lookUp: (conn, display) => remote.endpoint(conn, display), scope });
    const servers = new Servers({ remote, emit, ready, desktops, closeDisplay: (c, d) => late.viewers.closeDisplay(c, d) });
    const viewers = new Viewers({
      hub, channelBase: deps.channelBase, remote, ready, rttMs: (id) => connections.rttMs(id), desktops, log,
      measureRtt: (id) => connections.measureRtt(id),
      jobNode: (jobId) => late.clusters.jobNode(jobId),
      encoders: async (session) => encoderChoice(await probeVideo(session as SshConnection)),
      closeJobLink: (jobId) => void late.clusters.closeLink(jobId),
    });
    const clusters = new Clusters({
      emit, hub, channelBase: deps.channelBase, jobRecordsFile: deps.jobRecordsFile, ready, log,
      profileIdOf: (id) => connections.profileIdOf(id), profiles, viewers,
    });
    const http = new HttpChecks();
    const forwards = new Forwards({ emit, connections, http });
    const tunnels = new Tunnels({ remote, emit, connections, http, desktops, openForwards: (id) => forwards.open(id) });
    Object.assign(late, { profiles, viewers, clusters });
    const keys = new Keys({ keys: deps.keys, dialogs: deps.dialogs, prompts: this.prompts, connections, profiles });
    const clipboardImages = new ClipboardImages({ target: (id) => viewers.imageTarget(id), log });
    const desktopRuns = new DesktopRuns({ shell: (id) => ready(id).conn, scope, log });
    const files = new FileTransfers({ sftp: (id) => connections.sftp(id), scope, emit, chooseSaveFolder: deps.chooseSaveFolder });

    // Told, not asked to clean up: what is open now once a connection went, and to check again after a reconnect.
    connections.onClosed(() => tunnels.announce());
    connections.onClosed(() => forwards.announce());
    connections.onReady((c) => forwards.recheck(c));
    connections.onReady((c) => tunnels.recheck(c));

    this.all = {
      ...appHandlers(deps),
      ...settingsHandlers(deps),
      ...profiles.handlers(),
      ...keys.handlers(),
      ...connections.handlers(),
      ...this.prompts.handlers(),
      ...servers.handlers(),
      ...viewers.handlers(),
      ...clusters.handlers(),
      ...tunnels.handlers(),
      ...forwards.handlers(),
      ...files.handlers(),
      ...clipboardImages.handlers(),
      ...desktopRuns.handlers(),
    };
  }

  /** Every contract method's handler: one object, built once. */
  handlers(): Handlers {
    return this.all;
  }

  async shutdown(): Promise<void> {
    await this.connections.shutdown();
  }
}

function packageVersion(): string {
  try {
    return JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')).version;
  } catch {
    return '0.0.0';
  }
}

type Required = Pick<AppCoreDeps, 'hub' | 'channelBase' | 'emit' | 'shell'>;

/** The app's services with the real collaborators (profiles file, OS keychain, remote core). */
export async function createAppCore(deps: Required & Partial<AppCoreDeps>): Promise<AppCore> {
  const paths = appPaths();
  ensureDir(paths.dataDir);
  const profiles = deps.profiles ?? new ProfileStore({ file: paths.profilesFile, notice: (l) => deps.log?.(l) });
  const secrets = deps.secrets ?? createKeytarStore();
  const keys = new KeyStore({ secrets, profiles });
  return new AppCore({
    profiles,
    knownHostsFile: paths.knownHostsFile,
    remote: remoteOps(),
    version: packageVersion(),
    settingsFile: path.join(paths.dataDir, 'settings.json'),
    jobRecordsFile: path.join(paths.dataDir, 'desktop-jobs.json'),
    secrets,
    keychainKeySource: (name) => keychainKeySource(keys, [name]),
    keys,
    ...deps,
  });
}
