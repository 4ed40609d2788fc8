import path from 'node:path';
import { GpuDeskError } from '../../errors';
import { installAndVerify, removePublicKeyFromServer } from '../../keychain/installKey';
import { keychainKeySource } from '../../keychain/keySource';
import type { KeyStore } from '../../keychain/keyStore';
import { connectSsh } from '../../ssh/connection';
import type { ConnectOptions } from '../../ssh/types';
import { jsonText, writeLine, type CliIo } from '../io';
import { parseCommandArgs, UsageError } from '../parse';
import { appStores } from '../appStores';
import { ask, readSecret } from '../prompts';
import { registerCommand } from '../registry';
import { connectOptionsFromFlags, sshOptionHelp, sshOptionSpec, type SshOptionValues } from '../sshOptions';
import { certificateView } from '../../app/views';

const help = [
  'Usage: gpu-desk keys <generate|import|list|public|certificate|install|remove> [options]',
  '',
  'SSH key pairs whose private half lives only in the OS keychain.',
  '',
  '  keys generate NAME [--comment C] [--profile P] [--json]   new ed25519 key (--profile: use it there)',
  '  keys import NAME FILE [--passphrase-stdin] [--json]       copy a key file in, decrypted only inside the keychain',
  '  keys list [--json]',
  '  keys public NAME                                          print the public key (authorized_keys line)',
  '  keys certificate NAME FILE|--none                         use the OpenSSH certificate FILE (e.g. what your site\'s',
  '      sshproxy writes each day) with the key: offered before the key; the path is kept, so a renewed one is used',
  '  keys install NAME <destination> [--password-stdin] [--use-in-profile] [--json] [ssh options]',
  '      log in with a password (asked on the terminal, or from stdin), add the key to',
  '      ~/.ssh/authorized_keys once, then try a login with the key and report it',
  '  keys remove NAME [--from <destination> [--password-stdin] [ssh options]] [--force] [--json]',
  '      delete the keychain entry; --from also removes it from that server\'s authorized_keys',
  '',
  '<destination> is user@host, host, a ~/.ssh/config alias or a saved profile name.',
  'ssh options:',
  ...sshOptionHelp,
].join('\n');

async function connectForKeys(destination: string, v: SshOptionValues & { 'password-stdin'?: boolean }, io: CliIo, command: string) {
  const opts = await connectOptionsFromFlags(destination, v, io);
  if (v['password-stdin']) opts.password = await readSecret(io, true, '', command);
  opts.reconnect = { enabled: false };
  // Host keys the user accepts now are accepted again (once) for the proving login that follows.
  const accepted = new Set<string>();
  const judge = opts.callbacks?.onUnknownHostKey;
  if (judge) {
    opts.callbacks = {
      ...opts.callbacks,
      onUnknownHostKey: async (p) => {
        const d = await judge(p);
        if (d !== 'reject') accepted.add(`${p.hop} ${p.fingerprint}`);
        return d;
      },
    };
  }
  const conn = await connectSsh(opts);
  return { conn, opts, accepted };
}

/** A fresh login offering only the keychain key: no agent, no key files, no password. */
async function proveKeyLogin(keys: KeyStore, name: string, opts: ConnectOptions, accepted: Set<string>): Promise<void> {
  const { password: _pw, identityFiles: _ids, ...rest } = opts;
  const conn = await connectSsh({
    ...rest,
    agent: false,
    onlyGivenKeys: true,
    keySources: [keychainKeySource(keys, [name])],
    reconnect: { enabled: false },
    callbacks: { onUnknownHostKey: async (p) => (accepted.has(`${p.hop} ${p.fingerprint}`) ? 'accept-once' : 'reject') },
  });
  try {
    const r = await conn.exec('true', { timeoutMs: 20_000 });
    if (r.code !== 0) throw new GpuDeskError('REMOTE_COMMAND_FAILED', `logged in, but the server refused to run a command (exit ${r.code})`, 'check the account\'s shell on the server');
  } finally {
    await conn.close();
  }
}

async function run(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || sub === '--help' || sub === '-h') {
    writeLine(io.stdout, help);
    return sub ? 0 : 2;
  }
  const { values, positionals } = parseCommandArgs(`keys ${sub}`, rest, {
    ...sshOptionSpec,
    json: { type: 'boolean' },
    comment: { type: 'string' },
    profile: { type: 'string' },
    'passphrase-stdin': { type: 'boolean' },
    'password-stdin': { type: 'boolean' },
    'use-in-profile': { type: 'boolean' },
    from: { type: 'string' },
    force: { type: 'boolean' },
    none: { type: 'boolean' },
  });
  const v = values as SshOptionValues & Record<string, string | boolean | undefined>;
  if (v.help) return writeLine(io.stdout, help), 0;
  const json = !!v.json;
  const { keys, profiles } = appStores(io);
  const need = (n: number, what: string) => {
    if (positionals.length !== n) throw new UsageError(`expected ${what}`, 'keys');
    return positionals;
  };

  switch (sub) {
    case 'generate': {
      const [name] = need(1, 'NAME');
      if (v.profile) await profiles.get(String(v.profile));
      const rec = await keys.generate(name, { comment: v.comment === undefined ? undefined : String(v.comment) });
      if (v.profile) await profiles.edit(String(v.profile), { auth: { kind: 'keychain-key', key: name } });
      if (json) writeLine(io.stdout, jsonText({ key: rec, ...(v.profile ? { profile: v.profile } : {}) }));
      else {
        writeLine(io.stdout, `Generated ${rec.type} key "${name}" (${rec.fingerprint}); the private key is in the OS keychain (${keys.secrets.service}).`);
        writeLine(io.stdout, rec.publicKey);
        if (v.profile) writeLine(io.stdout, `Profile "${v.profile}" now logs in with it.`);
        writeLine(io.stdout, `Install it on a server with: gpu-desk keys install ${name} user@host`);
      }
      return 0;
    }
    case 'import': {
      const [name, file] = need(2, 'NAME and FILE');
      let stdinPass: string | undefined;
      const rec = await keys.importFile(name, path.resolve(file), {
        askPassphrase: async ({ keyLabel, attempt }) => {
          if (v['passphrase-stdin']) {
            if (attempt > 1) throw new GpuDeskError('KEY_PASSPHRASE', `wrong passphrase for ${keyLabel} (read from stdin)`, 'check it and run the import again');
            stdinPass ??= await readSecret(io, true, '', 'keys');
            return stdinPass;
          }
          if (!io.interactive) throw new GpuDeskError('KEY_PASSPHRASE', `${keyLabel} is encrypted and there is no terminal to ask for its passphrase`, 'pipe it in with --passphrase-stdin');
          return ask(io, `Enter passphrase for ${keyLabel}${attempt > 1 ? ' (try again)' : ''}: `, { hidden: true });
        },
      });
      if (json) writeLine(io.stdout, jsonText({ key: rec }));
      else writeLine(io.stdout, `Imported ${rec.type} key "${name}" (${rec.fingerprint}) into the OS keychain${rec.storage === 'sealed-file' ? ' (sealed in the data directory; too large for one keychain entry)' : ''}. The file ${file} is untouched.`);
      return 0;
    }
    case 'list': {
      need(0, 'no arguments');
      const list = await keys.list();
      if (json) writeLine(io.stdout, jsonText({ keys: list }));
      else if (!list.length) writeLine(io.stdout, 'No keys yet. Create one with "gpu-desk keys generate NAME".');
      else {
        for (const k of list) {
          writeLine(io.stdout, `${k.name}  ${k.type}  ${k.fingerprint}  ${k.source}${k.storage === 'sealed-file' ? ' (sealed)' : ''}  ${k.comment}`.trimEnd());
          const c = certificateView(k);
          if (c) writeLine(io.stdout, `    certificate ${c.file}: ${c.problem ?? `${c.principals.length ? `principals ${c.principals.join(', ')}` : 'any principal'}, ${c.validBefore ? `valid until ${c.validBefore.replace('T', ' ').replace(/:\d\d\.\d+Z$/, ' UTC')}` : 'no expiry'}`}`);
        }
      }
      return 0;
    }
    case 'certificate': {
      const [name, file] = v.none ? need(1, 'NAME (with --none)') : need(2, 'NAME and FILE (or --none)');
      const rec = await keys.setCertificateFile(name, v.none ? null : file);
      const c = certificateView(rec);
      if (json) writeLine(io.stdout, jsonText({ key: rec.name, certificate: c }));
      else if (!c) writeLine(io.stdout, `Key "${name}" has no certificate now.`);
      else writeLine(io.stdout, `Key "${name}" now offers the certificate ${c.file} first (${c.problem ?? `${c.principals.length ? `principals ${c.principals.join(', ')}` : 'any principal'}${c.validBefore ? `, valid until ${c.validBefore}` : ''}`}).`);
      return 0;
    }
    case 'public': {
      const [name] = need(1, 'NAME');
      const pub = await keys.publicKey(name);
      writeLine(io.stdout, json ? jsonText({ name, publicKey: pub }) : pub);
      return 0;
    }
    case 'install': {
      const [name, destination] = need(2, 'NAME and <destination>');
      const pub = await keys.publicKey(name);
      if (v['use-in-profile']) await profiles.get(destination);
      const { conn, opts, accepted } = await connectForKeys(destination, v, io, 'keys');
      let report;
      try {
        report = await installAndVerify(conn, pub, () => proveKeyLogin(keys, name, opts, accepted));
      } finally {
        await conn.close();
      }
      if (report.keyLogin.ok && v['use-in-profile']) await profiles.edit(destination, { auth: { kind: 'keychain-key', key: name } });
      if (json) writeLine(io.stdout, jsonText({ key: name, destination: conn.label, ...report }));
      else {
        writeLine(io.stdout, report.added ? `Added key "${name}" to ~/.ssh/authorized_keys on ${conn.label}.` : `Key "${name}" was already in ~/.ssh/authorized_keys on ${conn.label}; nothing added.`);
        if (report.keyLogin.ok) writeLine(io.stdout, `Key login works: ${conn.label} accepted "${name}" on its own.${v['use-in-profile'] ? ` Profile "${destination}" now uses it.` : ''}`);
      }
      if (!report.keyLogin.ok) {
        writeLine(io.stderr, `error: the key was installed but a login with it failed: ${report.keyLogin.message} — check the server's sshd (PubkeyAuthentication, AuthorizedKeysFile, StrictModes and ownership of ~/.ssh)`);
        return 1;
      }
      return 0;
    }
    case 'remove': {
      const [name] = need(1, 'NAME');
      const rec = await keys.get(name);
      let fromServer: { destination: string; removed: boolean } | undefined;
      if (v.from) {
        const { conn } = await connectForKeys(String(v.from), v, io, 'keys');
        try {
          fromServer = { destination: conn.label, ...(await removePublicKeyFromServer(conn, rec.publicKey)) };
        } finally {
          await conn.close();
        }
      }
      const r = await keys.remove(name, { force: !!v.force });
      if (json) writeLine(io.stdout, jsonText({ removed: name, profilesChanged: r.profilesChanged, ...(fromServer ? { server: fromServer } : {}) }));
      else {
        if (fromServer) writeLine(io.stdout, fromServer.removed ? `Removed "${name}" from ~/.ssh/authorized_keys on ${fromServer.destination}.` : `"${name}" was not in ~/.ssh/authorized_keys on ${fromServer.destination}.`);
        writeLine(io.stdout, `Deleted key "${name}" from the OS keychain.${r.profilesChanged.length ? ` Profiles now on auto authentication: ${r.profilesChanged.join(', ')}.` : ''}`);
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown subcommand "${sub}"`, 'keys');
  }
}

registerCommand({ name: 'keys', help, run });
