/**
 * THE IPC contract: every method the renderer may call (its input schema and output type) and
 * every event it may receive. The Electron router and preload, the browser harness and the
 * renderer's client are all derived from this object; nothing else names a channel.
 * Inputs are strict (unknown fields rejected) and bounded, because the renderer is untrusted.
 */
import { z } from 'zod';
import type {
  AppCommand,
  AppInfo,
  DeskDisplay,
  ByteCounters,
  ClusterDefaultsView,
  ClusterJobView,
  ClusterViewerTicket,
  ConnectionTestView,
  ConnectionView,
  ForwardView,
  GpuSample,
  KeyInstallView,
  KeyRemoveView,
  KeyView,
  Profile,
  ProfilesExportView,
  ProfilesImportView,
  PromptRequest,
  RemoteFolderView,
  ServerReportView,
  RememberedJob,
  SavedTunnelView,
  SettingsView,
  SetupProgress,
  SetupPlanView,
  SetupResultView,
  SshConfigHost,
  SshImportResult,
  TunnelView,
  UploadProgress,
  UploadTicket,
  VncSessionView,
  ViewOnlyInviteView,
  DesktopRunView,
  DesktopRunStateView,
  ViewerTicket,
  VideoTicket,
  ViewerGpuSample,
} from './models';
import { LANGUAGE_CHOICES } from './language';
import { authKindError, authSchema, displaySchema, forwardSchema, jobSettingsSchema, NAME_RE, profileObject, VIEWER_ENCODINGS, viewerSchema } from './profileSchema';
import { JUMP_SPEC_RE, LOGIN_NAME_RE } from './loginNames';
import { START_GEOMETRY_HINT, START_GEOMETRY_RE } from './screenGeometry';
import { CLIPBOARD_IMAGE_PART_BYTES, type ClipboardImageResult } from './clipboardImage';

const id = z.string().min(1).max(64).regex(/^[A-Za-z0-9_.:-]+$/, 'id: letters, digits, _ . : - only');
const jobId = z.string().regex(/^\d{1,12}$/, 'job id: the number sbatch printed');
// Host names, IPv4/IPv6 literals and ssh_config aliases; no whitespace or shell metacharacters.
const HOST_RE = /^[A-Za-z0-9_.:%\-[\]]+$/;
const host = z.string().min(1).max(255).regex(HOST_RE, 'host: a name or address without spaces');
const port = z.number().int().min(1).max(65535);
const display = z.number().int().min(0).max(99);
const geometry = z.string().max(400).regex(START_GEOMETRY_RE, `geometry: ${START_GEOMETRY_HINT}`);
/** An absolute path on the server (SFTP takes it as is: no shell ever sees it). */
const remotePath = z.string().min(1).max(4096).regex(/^\/[^\0]*$/, 'path: an absolute path on the server');
const fileName = z.string().min(1).max(255);
/** One upload chunk, base64: 512 KiB of bytes stays under the IPC's 1 Mi-character string limit. */
export const UPLOAD_CHUNK_BYTES = 512 * 1024;
const wm = z.string().max(64).regex(/^[A-Za-z0-9_.+-]*$/, 'window manager: a program name');

const name = z.string().regex(NAME_RE, 'name: 1–64 letters, digits, ".", "_" or "-"');

// The window's profile input is the profile's own schema (profileSchema.ts), made strict, without
// what only the main process sets (timestamps, an imported ProxyCommand), with the id optional (absent:
// a new profile) and with the boundary's limits on top: bounded lists, and host, user and jump-host
// characters that no shell would treat specially.
const hostChars = (s: z.ZodString) => s.regex(HOST_RE, 'host: a name or address without spaces');
const userChars = (s: z.ZodString) => s.regex(LOGIN_NAME_RE, 'user: a login name');
const jumpChars = (s: z.ZodString) => s.max(300).regex(JUMP_SPEC_RE, 'jump host: [user@]host[:port]');

export const forwardInputSchema = forwardSchema.extend({ remoteHost: hostChars(forwardSchema.shape.remoteHost) }).strict();
export const jobSettingsInputSchema = jobSettingsSchema.strict();
const [authAuto, authAgent, authKeychainKey, authKeyFile, authPassword] = authSchema.options;
export const authInputSchema = z.discriminatedUnion('kind', [authAuto.strict(), authAgent.strict(), authKeychainKey.strict(), authKeyFile.strict(), authPassword.strict()], { error: authKindError });

const saved = profileObject.shape;
export const profileInputSchema = z.strictObject({
  id: id.optional(),
  name: saved.name,
  /** Absent: a new profile is a server, an edited one keeps its kind. */
  kind: saved.kind.unwrap().optional(),
  job: jobSettingsInputSchema.optional(),
  host: hostChars(saved.host),
  port: saved.port.unwrap(),
  user: userChars(saved.user.unwrap()).optional(),
  jumpHosts: z.array(jumpChars(saved.jumpHosts.unwrap().element)).max(8),
  auth: authInputSchema,
  display: displaySchema.strict(),
  viewer: viewerSchema.extend({ encodings: viewerSchema.shape.encodings.refine((e) => e.length <= VIEWER_ENCODINGS.length, `encodings: at most ${VIEWER_ENCODINGS.length}`) }).strict(),
  forwards: z.array(forwardInputSchema).max(32),
});
export type ProfileInput = z.input<typeof profileInputSchema>;

const empty = z.strictObject({});
const byConnection = z.strictObject({ connectionId: id });
/** What the user chose when reviewing the set-up plan (core checks the URL again, with its own message). */
const setupOptions = z.strictObject({
  packagesFrom: z.string().max(500).regex(/^https?:\/\/[^\s'"`\\]+$/, 'package mirror: an http(s) URL').optional(),
  allowUnverified: z.boolean().optional(),
  windowManager: z.enum(['xfce', 'openbox']).optional(),
  /** true: install into the home with no root; false: the system plan; left out: by itself where the account has no sudo. */
  userInstall: z.boolean().optional(),
});

/** Phantom marker carrying a method's output type (never called at run time). */
const out = <T>() => null as unknown as T;

interface MethodDef<I extends z.ZodType, O> {
  input: I;
  output: O;
}
const m = <I extends z.ZodType, O>(input: I, output: O): MethodDef<I, O> => ({ input, output });

export const methods = {
  'app.info': m(empty, out<AppInfo>()),
  /** Opens an http(s) URL on 127.0.0.1 in the system browser (extra forwards). */
  'app.openExternal': m(z.strictObject({ url: z.string().max(2048).regex(/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?(\/|$)/, 'url: a local http address') }), out<void>()),
  /** The desk's monitors (the viewer's "Screens: match my monitors"); null where the shell cannot tell (the harness: the browser's Window Management API instead). */
  'app.displays': m(empty, out<DeskDisplay[] | null>()),

  'settings.get': m(empty, out<SettingsView>()),
  /** Changes only the fields given; every window (and the Electron menus) hear `settings.changed`. */
  'settings.set': m(z.strictObject({ language: z.enum(LANGUAGE_CHOICES).optional(), keepRunningInTray: z.boolean().optional() }), out<SettingsView>()),

  'profiles.list': m(empty, out<Profile[]>()),
  /** Create (no id) or update (id of an existing profile). */
  'profiles.save': m(z.strictObject({ profile: profileInputSchema }), out<Profile>()),
  'profiles.remove': m(z.strictObject({ id }), out<void>()),
  /** Always the main process's own ssh config: a window never names a file for the main process to read. */
  'profiles.sshConfigHosts': m(empty, out<SshConfigHost[]>()),
  'profiles.importSshConfig': m(z.strictObject({ aliases: z.array(host).min(1).max(200) }), out<SshImportResult>()),

  /**
   * Files are chosen in the main process (a native dialog; the harness's stand-in in tests): a window
   * never names a path for the main process to read or write. null: the user cancelled the dialog.
   */
  'profiles.exportFile': m(empty, out<ProfilesExportView | null>()),
  'profiles.importFile': m(z.strictObject({ replace: z.boolean() }), out<ProfilesImportView | null>()),
  /** The Add-server form's Browse… for a key file: the chosen path (a profile names its key file anyway), or null. */
  'profiles.chooseKeyFile': m(empty, out<string | null>()),

  'keys.list': m(empty, out<KeyView[]>()),
  'keys.generate': m(z.strictObject({ name }), out<KeyView>()),
  /** A private key file chosen in main; an encrypted one asks its passphrase as a `prompt` (kind passphrase). null: dialog cancelled. */
  'keys.importFile': m(z.strictObject({ name }), out<KeyView | null>()),
  /** Attaches a certificate file (chosen in the file dialog) to a key, or detaches it (`detach`). */
  'keys.certificate': m(z.strictObject({ name, detach: z.boolean() }), out<KeyView | null>()),
  /** With fromProfileId: first removed from that server's authorized_keys (connecting as the profile does). */
  'keys.remove': m(z.strictObject({ name, fromProfileId: id.optional(), force: z.boolean() }), out<KeyRemoveView>()),
  /**
   * Put the key on the profile's server (logging in as the profile does: its password is asked as a
   * `prompt` unless remembered), prove a login with only that key, then switch the profile to it.
   */
  'keys.install': m(z.strictObject({ name, profileId: id }), out<KeyInstallView>()),

  'connections.list': m(empty, out<ConnectionView[]>()),
  /** Starts connecting; prompts arrive as `prompt` events; resolves once ready (or rejects). */
  'connections.open': m(z.strictObject({ profileId: id }), out<ConnectionView>()),
  'connections.close': m(byConnection, out<void>()),
  /**
   * Add server's Test connection: logs in with the form's values (not saved), asking the same
   * questions as a connect (`prompt` events: the host key first), runs `true`, and closes.
   */
  'connections.test': m(z.strictObject({ profile: profileInputSchema }), out<ConnectionTestView>()),
  'prompts.answer': m(
    z.strictObject({
      promptId: id,
      answer: z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('hostKey'), decision: z.enum(['reject', 'accept-once', 'accept-save']) }),
        z.strictObject({ kind: z.literal('secret'), value: z.string().max(4096).nullable() }),
        z.strictObject({ kind: z.literal('answers'), values: z.array(z.string().max(4096)).max(16).nullable() }),
      ]),
    }),
    out<void>(),
  ),

  'server.probe': m(byConnection, out<ServerReportView>()),
  'server.gpus': m(byConnection, out<GpuSample>()),

  'sessions.list': m(byConnection, out<VncSessionView[]>()),
  'sessions.start': m(
    z.strictObject({
      connectionId: id, display: display.optional(), geometry: geometry.optional(), windowManager: wm.optional(),
      // TurboVNC: a 0600 Unix socket and no TCP port (the default), or 127.0.0.1:5900+n for tools that need a port on the server.
      transport: z.enum(['unix', 'tcp']).optional(),
      // nvidia-smi's index of the GPU the desktop renders on ("Render on"); omitted: not pinned.
      gpu: z.number().int().min(0).max(63).optional(),
    }),
    out<VncSessionView>(),
  ),
  'sessions.kill': m(z.strictObject({ connectionId: id, display }), out<void>()),
  /** TurboVNC: a view-only one-time password for display N, and what a colleague runs to watch it. */
  'sessions.invite': m(z.strictObject({ connectionId: id, display }), out<ViewOnlyInviteView>()),

  /**
   * "Run in desktop…": a command line run in display N as a program of the desktop (detached; its
   * output kept in a log on the server), through VirtualGL's vglrun with this back end ("egl", "egl0",
   * a DRI device or a GLX display) or none (null).
   */
  'runs.start': m(
    z.strictObject({
      connectionId: id, display,
      command: z.string().min(1).max(4096).refine((c) => !c.includes('\0') && c.trim() !== '', 'command: a command line, e.g. vkcube'),
      virtualgl: z.string().max(64).regex(/^(egl\d*|\/dev\/dri\/card\d+|:\d+(\.\d+)?)$/, 'virtualgl: egl, eglN, /dev/dri/cardN or :N').nullable(),
    }),
    out<DesktopRunView>(),
  ),
  /** Whether the program still runs, its exit status, and the last 64 KiB of its output. */
  'runs.output': m(z.strictObject({ runId: id }), out<DesktopRunStateView>()),
  /** Ends the program and what it started (TERM to its process group). */
  'runs.stop': m(z.strictObject({ runId: id }), out<void>()),

  /** The plan to review, with the id of exactly this plan: setup.apply runs only a plan shown. */
  'setup.plan': m(z.strictObject({ connectionId: id, options: setupOptions.optional() }), out<SetupPlanView & { planId: string }>()),
  /**
   * Runs the plan reviewed by the user (by its id); progress arrives as `setup.progress` events.
   * fromStepId: Retry after a failure, from that step on (the result's retryPlanId).
   */
  'setup.apply': m(
    z.strictObject({ connectionId: id, runId: id, sudoPassword: z.string().max(1024).nullable(), planId: id, fromStepId: id.optional() }),
    out<SetupResultView>(),
  ),

  /** A one-use ticket for the viewer's byte channel to display N over this connection. */
  'viewer.open': m(z.strictObject({ connectionId: id, display }), out<ViewerTicket>()),
  'viewer.close': m(z.strictObject({ viewerId: id }), out<void>()),
  /** The viewer's byte counters; with measureRtt, a fresh SSH round trip (video mode's link signal). */
  'viewer.stats': m(z.strictObject({ viewerId: id, measureRtt: z.boolean().optional() }), out<ByteCounters>()),
  /** The one-time password of a ticket with passwordLater (waits for its fetch; null when none came). */
  'viewer.password': m(z.strictObject({ viewerId: id }), out<{ password: string | null }>()),
  /** The GPUs of the machine the viewer's desktop renders on (a job's: its compute node), for the HUD. */
  'viewer.gpus': m(z.strictObject({ viewerId: id }), out<ViewerGpuSample>()),
  /**
   * Video mode: the viewer's desktop as H.264 from the server's encoder, on a channel of its own (a new
   * call replaces the viewer's stream: a resize, another bitrate, a fresh key frame).
   */
  'viewer.videoStart': m(
    z.strictObject({
      viewerId: id,
      width: z.number().int().min(16).max(8192),
      height: z.number().int().min(16).max(8192),
      fps: z.number().int().min(1).max(120),
      bitrateKbps: z.number().int().min(250).max(200_000),
    }),
    out<VideoTicket>(),
  ),
  'viewer.videoStop': m(z.strictObject({ viewerId: id }), out<void>()),

  /** Partitions (with their GPUs) and accounts the cluster offers, for a cluster profile's form. */
  'clusters.defaults': m(byConnection, out<ClusterDefaultsView>()),
  /** The sbatch line and job script a Start would submit, for review before the first submit. */
  'clusters.script': m(z.strictObject({ profileId: id }), out<{ shown: string; scriptId: string }>()),
  /** Submits exactly the job script shown (by its id); its states then arrive as `clusters.job` events. */
  'clusters.submit': m(z.strictObject({ connectionId: id, scriptId: id }), out<ClusterJobView>()),
  /** The user's queued and running desktop jobs (found by job name), followed from now on. */
  'clusters.jobs': m(byConnection, out<ClusterJobView[]>()),
  'clusters.cancel': m(z.strictObject({ connectionId: id, jobId }), out<void>()),
  /** A viewer on the running job's desktop, through the login node. */
  'clusters.viewer': m(z.strictObject({ connectionId: id, jobId }), out<ClusterViewerTicket>()),
  /** Desktop jobs this app submitted that may still run (no cluster is asked): offered at start. */
  'clusters.remembered': m(empty, out<RememberedJob[]>()),

  'tunnels.list': m(empty, out<TunnelView[]>()),
  'tunnels.open': m(
    z.strictObject({ connectionId: id, display, localPort: port.optional(), forwards: z.array(forwardInputSchema).max(32).optional() }),
    // With the desktop's password for a native viewer (a fresh TurboVNC one-time password, or a TigerVNC desktop's own).
    out<SavedTunnelView>(),
  ),
  'tunnels.close': m(z.strictObject({ tunnelId: id }), out<void>()),
  /** Tunnel-only mode for a saved server (the tray): connects if needed, opens its display and its forwards. */
  'tunnels.openSaved': m(z.strictObject({ profileId: id, jobId: jobId.optional() }), out<SavedTunnelView>()),

  'forwards.list': m(empty, out<ForwardView[]>()),
  /** Opens the profile's saved forwards (or these) on this connection; already open ones are reused. */
  'forwards.open': m(z.strictObject({ connectionId: id, forwards: z.array(forwardInputSchema).max(32).optional() }), out<ForwardView[]>()),
  /** Asks again whether the forward answers HTTP (a real request through its local address). */
  'forwards.check': m(z.strictObject({ forwardId: id }), out<ForwardView>()),
  'forwards.close': m(z.strictObject({ forwardId: id }), out<void>()),

  /** One folder on the server; without a path, where uploads go by default (~/Desktop, else ~). */
  'files.list': m(z.strictObject({ connectionId: id, path: remotePath.optional() }), out<RemoteFolderView>()),
  /** Fails with FILE_EXISTS unless overwrite: the window asks the user, then starts again with overwrite. */
  'files.uploadStart': m(
    z.strictObject({ connectionId: id, folder: remotePath.optional(), name: fileName, size: z.number().int().min(0).max(2 ** 50), overwrite: z.boolean() }),
    out<UploadTicket>(),
  ),
  'files.uploadChunk': m(
    z.strictObject({ uploadId: id, offset: z.number().int().min(0).max(2 ** 50), data: z.string().max(Math.ceil(UPLOAD_CHUNK_BYTES / 3) * 4).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'data: base64') }),
    out<void>(),
  ),
  /** Resolves once every byte is on the server under its final name. */
  'files.uploadFinish': m(z.strictObject({ uploadId: id }), out<{ path: string; bytes: number }>()),
  'files.uploadCancel': m(z.strictObject({ uploadId: id }), out<void>()),
  /** Asks where to save (a native folder dialog in the app), then downloads; null when the user cancelled. */
  'files.download': m(z.strictObject({ connectionId: id, path: remotePath }), out<{ file: string; bytes: number } | null>()),

  /**
   * A PNG from the desk's clipboard to the viewer's X clipboard (xclip over its SSH connection), in
   * parts of CLIPBOARD_IMAGE_PART_BYTES: the first starts it, the last copies it on the server.
   */
  'clipboard.imageToServer': m(
    z.strictObject({ viewerId: id, part: z.string().max(Math.ceil(CLIPBOARD_IMAGE_PART_BYTES / 3) * 4).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'part: base64'), first: z.boolean(), last: z.boolean() }),
    out<ClipboardImageResult>(),
  ),
  /** The viewer's X clipboard as PNG (base64) when it holds one. */
  'clipboard.imageFromServer': m(z.strictObject({ viewerId: id }), out<ClipboardImageResult>()),
} as const;

/** Event name → payload type (phantom values, like outputs). */
export const events = {
  'connection.state': out<ConnectionView>(),
  prompt: out<PromptRequest>(),
  /** A prompt that is no longer wanted (connection gave up, answered elsewhere). */
  'prompt.cancel': out<{ promptId: string }>(),
  'setup.progress': out<SetupProgress>(),
  'tunnels.changed': out<TunnelView[]>(),
  'clusters.job': out<ClusterJobView>(),
  'settings.changed': out<SettingsView>(),
  /** The saved servers after any change (saved, removed, imported, a key install that switched one's sign-in). */
  'profiles.changed': out<Profile[]>(),
  'forwards.changed': out<ForwardView[]>(),
  'files.progress': out<UploadProgress>(),
  /** A main-process menu item the window carries out. */
  'app.command': out<{ command: AppCommand }>(),
} as const;

export type Methods = typeof methods;
export type MethodName = keyof Methods;
export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;
export type ParsedInput<M extends MethodName> = z.output<Methods[M]['input']>;
export type MethodOutput<M extends MethodName> = Methods[M]['output'];
export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = Events[E];

export const methodNames = Object.keys(methods) as MethodName[];
export const eventNames = Object.keys(events) as EventName[];

export function isMethodName(x: unknown): x is MethodName {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(methods, x);
}
export function isEventName(x: unknown): x is EventName {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(events, x);
}

/** What the renderer holds: the Electron bridge (window.gpuDesk) and the harness client both implement it. */
export interface GpuDeskApi {
  invoke<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}

/** Implementation side: one handler per method, given the parsed input. */
export type Handlers = { [M in MethodName]: (input: ParsedInput<M>) => Promise<MethodOutput<M>> };
/** The methods of one namespace ("profiles" → profiles.list, profiles.save, …). */
export type MethodsOf<N extends string> = Extract<MethodName, `${N}.${string}`>;
/** What one service of the app serves: the handlers of its namespace(s). */
export type HandlersOf<N extends string> = Pick<Handlers, MethodsOf<N>>;
export type Emit = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/** A rejected call as it crosses the boundary: stable code, one line, no secret. */
export class RemoteCallError extends Error {
  readonly code: string;
  readonly fix?: string;
  constructor(v: { code: string; message: string; fix?: string }) {
    super(v.message);
    this.name = 'RemoteCallError';
    this.code = v.code;
    this.fix = v.fix;
  }
}
