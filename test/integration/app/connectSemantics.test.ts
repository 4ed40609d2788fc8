import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppCore } from '../../../src/core/app/createAppCore';
import { appPaths } from '../../../src/core/profiles/appPaths';
import { ProfileStore } from '../../../src/core/profiles/profileStore';
import type { ParsedInput } from '../../../src/shared/contract';
import type { PromptRequest } from '../../../src/shared/models';
import { cleanupAll, makeTempDir, registerCleanup, startSshd, type SshdBed } from '../../bed';
import { connectionsCore } from '../../helpers/appCore';

/**
 * Issue 29, finding 1: one profile → connection-options mapping for the CLI and the app, against a
 * real sshd and a real ssh-agent that holds a different key than the profile names. The sshd allows
 * one failed attempt (MaxAuthTries 1, in a Match block: sshd keeps a keyword's first value, and the bed sets 20), so a key offered that the profile did not name ends the login.
 */

const BIN = path.resolve(__dirname, '../../../bin/gpu-desk.cjs');
let bed: SshdBed;
/** Room for many attempts: a key the profile did not name would get through here. */
let roomy: SshdBed;
let home: string;
let agentSock: string;
let agent: ChildProcess;
let kh: string;

beforeAll(async () => {
  [bed, roomy] = await Promise.all([startSshd({ extraConfig: ['Match all', 'MaxAuthTries 1'] }), startSshd()]);
  home = makeTempDir('gd-semantics-');
  kh = path.join(home, 'known_hosts');
  fs.writeFileSync(kh, `${bed.knownHostsLine}\n${roomy.knownHostsLine}\n`);
  // The agent holds a key the server does not accept.
  const other = path.join(home, 'other_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'not-authorized', '-f', other]);
  agentSock = path.join(home, 'agent.sock');
  agent = spawn('ssh-agent', ['-D', '-a', agentSock], { stdio: 'ignore' });
  registerCleanup(() => { agent.kill(); });
  for (let i = 0; i < 100 && !fs.existsSync(agentSock); i++) await new Promise((r) => setTimeout(r, 50));
  execFileSync('ssh-add', [other], { env: { ...process.env, SSH_AUTH_SOCK: agentSock }, stdio: 'ignore' });
  // The default key (~/.ssh/id_ed25519) is one the server accepts: a profile that says "the agent's keys" must not fall back to it.
  fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
  fs.copyFileSync(roomy.userKeyPath, path.join(home, '.ssh', 'id_ed25519'));
  fs.chmodSync(path.join(home, '.ssh', 'id_ed25519'), 0o600);
}, 60_000);
afterAll(cleanupAll);

type ProfileIn = ParsedInput<'profiles.save'>['profile'];
const profile = (name: string, auth: ProfileIn['auth'], on: SshdBed = bed): ProfileIn => ({
  name, host: '127.0.0.1', port: on.port, user: on.user, jumpHosts: [], auth,
  display: {}, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [],
});

/** `gpu-desk tunnel NAME -L …` with the saved profile: its first line (listening) or its error. */
async function cliTunnel(p: ProfileIn): Promise<{ listening: boolean; stderr: string }> {
  const dataDir = makeTempDir('gd-semantics-cli-');
  await new ProfileStore({ file: appPaths({ env: { GPU_DESK_HOME: dataDir } }).profilesFile, notice: () => {} }).add(p);
  const proc = spawn(process.execPath, [BIN, 'tunnel', p.name, '-L', `0:127.0.0.1:${bed.port}`, '--json', '--known-hosts', kh, '-F', 'none'], {
    env: { ...process.env, GPU_DESK_HOME: dataDir, HOME: home, SSH_AUTH_SOCK: agentSock },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number>((r) => proc.on('exit', (c) => r(c ?? -1)));
  const first = await createInterface({ input: proc.stdout })[Symbol.asyncIterator]().next();
  const listening = !first.done && JSON.parse(first.value).event === 'listening';
  proc.kill('SIGTERM');
  await exited;
  return { listening, stderr };
}

/** The same profile through the app core's handlers (in this process: HOME and SSH_AUTH_SOCK as the CLI had them). */
async function appOpen(p: ProfileIn): Promise<{ ok: boolean; code?: string }> {
  const saved = { HOME: process.env.HOME, SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK };
  process.env.HOME = home;
  process.env.SSH_AUTH_SOCK = agentSock;
  // Nothing else is offered in the person's place: a password or 2FA question is declined.
  const core: AppCore = connectionsCore({
    emit: (event, payload) => {
      if (event !== 'prompt') return;
      const q = payload as PromptRequest;
      const answer = q.kind === 'hostKey' ? { kind: 'hostKey', decision: 'reject' } : q.kind === 'keyboardInteractive' ? { kind: 'answers', values: null } : { kind: 'secret', value: null };
      setImmediate(() => void core.handlers()['prompts.answer']({ promptId: q.promptId, answer: answer as never }).catch(() => {}));
    },
    userKnownHostsFiles: [kh],
  }).core;
  try {
    const h = core.handlers();
    const s = await h['profiles.save']({ profile: p });
    const c = await h['connections.open']({ profileId: s.id });
    return { ok: c.state === 'ready' };
  } catch (e) {
    return { ok: false, code: (e as { code?: string }).code };
  } finally {
    await core.shutdown();
    process.env.HOME = saved.HOME;
    if (saved.SSH_AUTH_SOCK === undefined) delete process.env.SSH_AUTH_SOCK;
    else process.env.SSH_AUTH_SOCK = saved.SSH_AUTH_SOCK;
  }
}

describe('one profile → connection options, the CLI and the app alike (real sshd, real ssh-agent)', () => {
  it('a key-file profile offers that file alone: the agent\'s other key is not tried first (it would use up MaxAuthTries)', async () => {
    const p = profile('by-file', { kind: 'key-file', path: bed.userKeyPath });
    const cli = await cliTunnel(p);
    expect(cli.stderr).not.toMatch(/error:/);
    expect(cli.listening).toBe(true);
    expect(await appOpen(p)).toEqual({ ok: true });
  });

  it("an agent profile offers the agent's keys only: no key files, not even a default key the server would accept", async () => {
    const p = profile('by-agent', { kind: 'agent', socket: agentSock }, roomy);
    const cli = await cliTunnel(p);
    expect(cli.listening).toBe(false);
    expect(cli.stderr).toMatch(/error: .*Authentication/);
    expect(await appOpen(p)).toEqual({ ok: false, code: 'AUTH_FAILED' });
  });
});
