import { useState } from 'react';
import type { Profile, ProfileAuth } from '../../shared/models';
import { profileInputSchema, type ProfileInput } from '../../shared/contract';
import { errorLine, useApi } from '../app/api';
import { Dialog } from '../app/Dialog';

type AuthKind = ProfileAuth['kind'];

/** Add or edit a server. Validated here with the contract's own schema, and again by core. */
export function ProfileForm(props: { profile: Profile | null; onDone(saved: Profile): void; onCancel(): void }) {
  const api = useApi();
  const p = props.profile;
  const [name, setName] = useState(p?.name ?? '');
  const [host, setHost] = useState(p?.host ?? '');
  const [port, setPort] = useState(String(p?.port ?? 22));
  const [user, setUser] = useState(p?.user ?? '');
  const [jump, setJump] = useState(p?.jumpHosts.join(', ') ?? '');
  const [authKind, setAuthKind] = useState<AuthKind>(p?.auth.kind ?? 'auto');
  const [keyPath, setKeyPath] = useState(p?.auth.kind === 'key-file' ? p.auth.path : '');
  const [keyName, setKeyName] = useState(p?.auth.kind === 'keychain-key' ? p.auth.key : '');
  const [remember, setRemember] = useState(p?.auth.kind === 'password' ? p.auth.remember : false);
  const [display, setDisplay] = useState(p?.display.number !== undefined ? String(p.display.number) : '');
  const [geometry, setGeometry] = useState(p?.display.geometry ?? '1920x1080');
  const [forwards, setForwards] = useState(p?.forwards.map((f) => `${f.localPort}:${f.remoteHost}:${f.remotePort}`).join(', ') ?? '');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const build = (): ProfileInput => {
    const auth: ProfileAuth =
      authKind === 'key-file' ? { kind: 'key-file', path: keyPath.trim() }
      : authKind === 'keychain-key' ? { kind: 'keychain-key', key: keyName.trim() }
      : authKind === 'password' ? { kind: 'password', remember }
      : authKind === 'agent' ? { kind: 'agent' }
      : { kind: 'auto' };
    return {
      ...(p ? { id: p.id } : {}),
      name: name.trim(),
      host: host.trim(),
      port: Number(port),
      ...(user.trim() ? { user: user.trim() } : {}),
      jumpHosts: jump.split(',').map((s) => s.trim()).filter(Boolean),
      auth,
      display: { ...(display.trim() ? { number: Number(display) } : {}), ...(geometry.trim() ? { geometry: geometry.trim() } : {}) },
      viewer: p?.viewer ?? { quality: 6, compression: 2, encodings: [], scaling: 'fit', adaptive: true },
      forwards: forwards.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
        const m = /^(\d+):([^:\s]+):(\d+)$/.exec(s);
        if (!m) throw new Error(`forward "${s}" should look like LOCALPORT:HOST:PORT, e.g. 8888:127.0.0.1:8888`);
        return { kind: 'local' as const, localPort: Number(m[1]), remoteHost: m[2], remotePort: Number(m[3]) };
      }),
    };
  };

  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    let input: ProfileInput;
    try {
      input = build();
      const r = profileInputSchema.safeParse(input);
      if (!r.success) {
        const i = r.error.issues[0];
        throw new Error(`${i.path.join('.') || 'profile'}: ${i.message}`);
      }
    } catch (err) {
      setError((err as Error).message);
      return;
    }
    setSaving(true);
    try {
      props.onDone(await api.invoke('profiles.save', { profile: input }));
    } catch (err) {
      setError(errorLine(err));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog title={p ? `Edit ${p.name}` : 'Add server'} onCancel={props.onCancel} wide>
      <form onSubmit={save} className="form" aria-describedby={error ? 'profile-error' : undefined}>
        <label>Name<input value={name} onChange={(e) => setName(e.target.value)} required placeholder="gpu-lab" autoFocus /></label>
        <div className="row">
          <label className="grow">Host<input value={host} onChange={(e) => setHost(e.target.value)} required placeholder="gpu.example.org" /></label>
          <label className="small">Port<input value={port} onChange={(e) => setPort(e.target.value)} inputMode="numeric" required /></label>
        </div>
        <label>User<input value={user} onChange={(e) => setUser(e.target.value)} placeholder="(from ssh config or your login)" /></label>
        <label>Jump hosts<input value={jump} onChange={(e) => setJump(e.target.value)} placeholder="user@bastion:22, …" /></label>
        <fieldset>
          <legend>Sign in with</legend>
          <select aria-label="Authentication" value={authKind} onChange={(e) => setAuthKind(e.target.value as AuthKind)}>
            <option value="auto">Automatic (agent, default keys, then password)</option>
            <option value="agent">SSH agent</option>
            <option value="key-file">Private key file</option>
            <option value="keychain-key">Key in the OS keychain</option>
            <option value="password">Password</option>
          </select>
          {authKind === 'key-file' && <label>Key file<input value={keyPath} onChange={(e) => setKeyPath(e.target.value)} placeholder="~/.ssh/id_ed25519" required /></label>}
          {authKind === 'keychain-key' && <label>Keychain key name<input value={keyName} onChange={(e) => setKeyName(e.target.value)} required /></label>}
          {authKind === 'password' && <label className="check"><input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} /> Remember the password in the OS keychain</label>}
        </fieldset>
        <div className="row">
          <label className="small">Display<input value={display} onChange={(e) => setDisplay(e.target.value)} inputMode="numeric" placeholder="auto" /></label>
          <label className="grow">Geometry<input value={geometry} onChange={(e) => setGeometry(e.target.value)} placeholder="1920x1080" /></label>
        </div>
        <label>Extra forwards<input value={forwards} onChange={(e) => setForwards(e.target.value)} placeholder="8888:127.0.0.1:8888 (Jupyter), 6006:127.0.0.1:6006" /></label>
        {error && <p id="profile-error" className="banner error" role="alert">{error}</p>}
        <div className="dialog-actions">
          <button type="button" onClick={props.onCancel}>Cancel</button>
          <button type="submit" className="primary" disabled={saving}>{saving ? 'Saving…' : 'Save'}</button>
        </div>
      </form>
    </Dialog>
  );
}
