import { useEffect, useState } from 'react';
import type { ClusterDefaultsView, Profile, ProfileAuth } from '../../shared/models';
import { profileInputSchema, type ProfileInput } from '../../shared/contract';
import { useApi } from '../app/api';
import { useTranslation } from 'react-i18next';
import { useErrorLine } from '../i18n/errors';
import { Dialog } from '../app/Dialog';
import { JobSettingsFields, useJobSettings } from '../cluster/JobSettingsFields';
import { splitDestination } from '../../shared/destinationSplit';

type AuthKind = ProfileAuth['kind'];

/**
 * Add or edit a server or a cluster (a Slurm login node: the same sign-in fields, plus job settings).
 * Validated here with the contract's own schema, and again by core.
 */
export function ProfileForm(props: { profile: Profile | null; onDone(saved: Profile): void; onCancel(): void }) {
  const api = useApi();
  const { t } = useTranslation(['servers', 'common', 'cluster']);
  const errorLine = useErrorLine();
  // Asking the cluster for its defaults saves the profile first: from then on the form edits that one.
  const [savedHere, setSavedHere] = useState<Profile | null>(null);
  const p = savedHere ?? props.profile;
  const [kind, setKind] = useState<Profile['kind']>(props.profile?.kind ?? 'server');
  const job = useJobSettings(props.profile?.job);
  const [defaults, setDefaults] = useState<ClusterDefaultsView | null>(null);
  const [asking, setAsking] = useState(false);
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
  // Test connection: in progress, then one line (logged in, or the error).
  const [testing, setTesting] = useState(false);
  const [tested, setTested] = useState<{ ok: boolean; line: string } | null>(null);

  const build = (): ProfileInput => {
    const auth: ProfileAuth =
      authKind === 'key-file' ? { kind: 'key-file', path: keyPath.trim() }
      : authKind === 'keychain-key' ? { kind: 'keychain-key', key: keyName.trim() }
      : authKind === 'password' ? { kind: 'password', remember }
      : authKind === 'agent' ? { kind: 'agent' }
      : { kind: 'auto' };
    return {
      ...(p ? { id: p.id } : {}),
      kind,
      ...(kind === 'cluster' ? { job: job.build() } : {}),
      name: name.trim(),
      host: host.trim(),
      port: Number(port),
      ...(user.trim() ? { user: user.trim() } : {}),
      jumpHosts: jump.split(',').map((s) => s.trim()).filter(Boolean),
      auth,
      // A cluster's desktop is wherever its job runs: only its size is the profile's.
      display: { ...(display.trim() && kind === 'server' ? { number: Number(display) } : {}), ...(geometry.trim() ? { geometry: geometry.trim() } : {}) },
      viewer: p?.viewer ?? { quality: 6, compression: 2, encodings: [], scaling: 'fit', adaptive: true },
      forwards: kind === 'cluster' ? [] : forwards.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
        const m = /^(\d+):([^:\s]+):(\d+)$/.exec(s);
        if (!m) throw new Error(t('form.badForward', { spec: s }));
        return { kind: 'local' as const, localPort: Number(m[1]), remoteHost: m[2], remotePort: Number(m[3]) };
      }),
    };
  };

  // The schema names fields by their property; the message says them as the form labels them.
  const jobLabels: Record<string, string> = {
    partition: t('cluster:form.partition'), account: t('cluster:form.account'), qos: t('cluster:form.qos'), time: t('cluster:form.time'), gres: t('cluster:form.gres'),
    cpus: t('cluster:form.cpus'), mem: t('cluster:form.mem'), constraint: t('cluster:form.constraint'), extraSbatch: t('cluster:form.extraSbatch'), preamble: t('cluster:form.preamble'),
  };
  const fieldLabel = (f: string, sub?: string): string =>
    f === 'job' && sub ? (jobLabels[sub] ?? '') : ({ name: t('form.name'), host: t('form.host'), port: t('form.port'), user: t('form.user'), jumpHosts: t('form.jumpHosts'), auth: t('form.signIn'), display: t('form.display'), forwards: t('form.forwards') })[f] ?? '';

  /** The form as the contract's input, or null with the first problem shown. */
  const validInput = (nameless = false): ProfileInput | null => {
    try {
      const built = build();
      // A test needs no name yet: it is not saved.
      const input = nameless && !built.name ? { ...built, name: built.host || 'test' } : built;
      const r = profileInputSchema.safeParse(input);
      if (!r.success) {
        const i = r.error.issues[0];
        throw new Error(t('form.invalid', { field: fieldLabel(String(i.path[0] ?? ''), i.path[1] === undefined ? undefined : String(i.path[1])) || i.path.join('.'), message: i.path[0] === 'host' && i.path.length === 1 ? t('form.badHost') : i.message }));
      }
      return input;
    } catch (err) {
      setError((err as Error).message);
      return null;
    }
  };

  // A pasted `user@host:port` or `ssh://user@host:port` goes into its fields, as Termius and VS Code do;
  // a form error about the host is stale as soon as the field changes.
  const changeHost = (value: string) => {
    setError(null);
    if (!/[@:]|^ssh:\/\//.test(value.trim()) || /\s/.test(value.trim())) { setHost(value); return; }
    const d = splitDestination(value, { allowPort: true });
    setHost(d.host);
    if (d.user) setUser(d.user);
    if (d.port) setPort(d.port);
  };
  const browseKey = async () => {
    setError(null);
    try {
      const file = await api.invoke('profiles.chooseKeyFile', {});
      if (file) setKeyPath(file);
    } catch (err) {
      setError(errorLine(err));
    }
  };

  // Logs in with the form as it is (not saved), asking what a connect asks, and closes that connection.
  const testConnection = async () => {
    setError(null);
    setTested(null);
    const input = validInput(true);
    if (!input) return;
    setTesting(true);
    try {
      const r = await api.invoke('connections.test', { profile: input });
      setTested({ ok: true, line: t('form.testOk', { label: r.label }) });
    } catch (err) {
      setTested({ ok: false, line: t('form.testFailed', { error: errorLine(err) }) });
    } finally {
      setTesting(false);
    }
  };

  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    const input = validInput();
    if (!input) return;
    setSaving(true);
    try {
      props.onDone(await api.invoke('profiles.save', { profile: input }));
    } catch (err) {
      setError(errorLine(err));
    } finally {
      setSaving(false);
    }
  };

  // Editing a cluster that is connected: what it offers is shown straight away.
  useEffect(() => {
    if (props.profile?.kind !== 'cluster') return;
    let gone = false;
    void (async () => {
      const open = (await api.invoke('connections.list', {})).find((c) => c.profileId === props.profile!.id && c.state === 'ready');
      if (open && !gone) {
        const d = await api.invoke('clusters.defaults', { connectionId: open.id }).catch(() => null);
        if (!gone && d) setDefaults(d);
      }
    })();
    return () => { gone = true; };
  }, [api, props.profile]);

  // sinfo and sacctmgr run on the login node: save, sign in (prompts as for Connect), ask.
  const askCluster = async () => {
    setError(null);
    const input = validInput();
    if (!input) return;
    setAsking(true);
    try {
      const saved = await api.invoke('profiles.save', { profile: input });
      setSavedHere(saved);
      const open = (await api.invoke('connections.list', {})).find((c) => c.profileId === saved.id && c.state === 'ready');
      const c = open ?? (await api.invoke('connections.open', { profileId: saved.id }));
      setDefaults(await api.invoke('clusters.defaults', { connectionId: c.id }));
    } catch (err) {
      setError(errorLine(err));
    } finally {
      setAsking(false);
    }
  };

  return (
    <Dialog title={props.profile ? t('form.editTitle', { name: props.profile.name }) : t('form.addTitle')} onCancel={props.onCancel} wide>
      <form onSubmit={save} className="form" aria-describedby={error ? 'profile-error' : undefined}>
        {!props.profile && (
          <fieldset className="kind-choice" data-testid="profile-kind">
            <legend>{t('form.kind')}</legend>
            <label className="check"><input type="radio" name="kind" value="server" checked={kind === 'server'} onChange={() => setKind('server')} /> {t('form.kindServer')}</label>
            <label className="check"><input type="radio" name="kind" value="cluster" checked={kind === 'cluster'} onChange={() => setKind('cluster')} data-testid="kind-cluster" /> {t('form.kindCluster')}</label>
          </fieldset>
        )}
        <label>{t('form.name')}<input value={name} onChange={(e) => setName(e.target.value)} required placeholder="gpu-lab" autoFocus /></label>
        <div className="row">
          <label className="grow">{t('form.host')}<input value={host} onChange={(e) => changeHost(e.target.value)} required placeholder="gpu.example.org" data-testid="profile-host" /></label>
          <label className="small">{t('form.port')}<input value={port} onChange={(e) => { setError(null); setPort(e.target.value); }} inputMode="numeric" required data-testid="profile-port" /></label>
        </div>
        <label>{t('form.user')}<input value={user} onChange={(e) => setUser(e.target.value)} placeholder={t('form.userPlaceholder')} data-testid="profile-user" /></label>
        <label>{t('form.jumpHosts')}<input value={jump} onChange={(e) => setJump(e.target.value)} placeholder="user@bastion:22, …" /></label>
        <fieldset>
          <legend>{t('form.signIn')}</legend>
          <select aria-label={t('form.authAria')} value={authKind} onChange={(e) => setAuthKind(e.target.value as AuthKind)}>
            <option value="auto">{t('form.auth.auto')}</option>
            <option value="agent">{t('form.auth.agent')}</option>
            <option value="key-file">{t('form.auth.keyFile')}</option>
            <option value="keychain-key">{t('form.auth.keychainKey')}</option>
            <option value="password">{t('form.auth.password')}</option>
          </select>
          {authKind === 'key-file' && (
            <div className="row key-file-row">
              <label className="grow">{t('form.keyFile')}<input value={keyPath} onChange={(e) => setKeyPath(e.target.value)} placeholder="~/.ssh/id_ed25519" required /></label>
              <button type="button" onClick={() => void browseKey()} data-testid="browse-key">{t('form.browse')}</button>
            </div>
          )}
          {authKind === 'keychain-key' && <label>{t('form.keychainKey')}<input value={keyName} onChange={(e) => setKeyName(e.target.value)} required /></label>}
          {authKind === 'password' && <label className="check"><input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} /> {t('form.remember')}</label>}
        </fieldset>
        <div className="row">
          {kind === 'server' && <label className="small">{t('form.display')}<input value={display} onChange={(e) => setDisplay(e.target.value)} inputMode="numeric" placeholder={t('form.displayPlaceholder')} /></label>}
          <label className="grow">{t('form.geometry')}<input value={geometry} onChange={(e) => setGeometry(e.target.value)} placeholder="1920x1080" /></label>
        </div>
        {kind === 'server' && <label>{t('form.forwards')}<input value={forwards} onChange={(e) => setForwards(e.target.value)} placeholder={t('form.forwardsPlaceholder')} /></label>}
        {kind === 'cluster' && <JobSettingsFields s={job} defaults={defaults} asking={asking} onAsk={() => void askCluster()} />}
        {error && <p id="profile-error" className="banner error" role="alert">{error}</p>}
        {testing && <p className="muted" role="status" data-testid="test-connection-result">{t('form.testing')}</p>}
        {tested && <p className={`banner ${tested.ok ? 'ok' : 'error'}`} role="status" data-testid="test-connection-result" data-ok={tested.ok}>{tested.line}</p>}
        <div className="dialog-actions">
          <button type="button" onClick={() => void testConnection()} disabled={testing} data-testid="test-connection">{t('form.testConnection')}</button>
          <button type="button" onClick={props.onCancel}>{t('common:actions.cancel')}</button>
          <button type="submit" className="primary" disabled={saving}>{saving ? t('common:actions.saving') : t('common:actions.save')}</button>
        </div>
      </form>
    </Dialog>
  );
}
