import { useCallback, useEffect, useEffectEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RemoteFolderView } from '../../shared/models';
import { errorLine, useApi } from '../app/api';
import { useFormat } from '../i18n/useFormat';
import { useFileDrop } from './useFileDrop';
import { useUploads } from './useUploads';

/** The server page's Files tab: one server folder at a time, drop to upload into it, download files. */
export function FilesPanel({ connectionId }: { connectionId: string }) {
  const api = useApi();
  const { t } = useTranslation('files');
  const fmt = useFormat();
  const [folder, setFolder] = useState<RemoteFolderView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const uploads = useUploads(connectionId);
  const drop = useFileDrop((files) => void uploads.upload(files, folder?.path));
  const picker = useRef<HTMLInputElement>(null);

  const load = useCallback(async (path?: string) => {
    setError(null);
    try {
      setFolder(await api.invoke('files.list', { connectionId, ...(path ? { path } : {}) }));
    } catch (e) {
      setError(errorLine(e));
    }
  }, [api, connectionId]);
  useEffect(() => { void load(); }, [load]);

  // The listing shows what the uploads put there once they are done.
  const doneCount = uploads.items.filter((i) => i.state === 'done').length;
  const reloadFolder = useEffectEvent(() => { if (folder) void load(folder.path); });
  useEffect(() => { if (doneCount) reloadFolder(); }, [doneCount]);

  const download = async (name: string) => {
    if (!folder) return;
    setNote(t('downloading', { name }));
    setError(null);
    try {
      const r = await api.invoke('files.download', { connectionId, path: `${folder.path === '/' ? '' : folder.path}/${name}` });
      setNote(r ? t('saved', { name, file: r.file }) : null);
    } catch (e) {
      setNote(null);
      setError(errorLine(e));
    }
  };

  return (
    <section
      className={`files${drop.over ? ' drop-over' : ''}`}
      aria-labelledby="files-h"
      data-testid="files-panel"
      {...drop.handlers}
    >
      <h2 id="files-h">{t('heading')}</h2>
      <div className="files-bar">
        <button disabled={!folder?.parent} onClick={() => folder?.parent && void load(folder.parent)} aria-label={folder?.parent ? t('upAria', { folder: folder.parent }) : t('up')}>↑ {t('up')}</button>
        <code data-testid="files-path">{folder?.path ?? ''}</code>
        <button onClick={() => void load(folder?.path)}>{t('reload')}</button>
        {/* Dropping files is not the only way in: Upload… opens the system's file chooser. */}
        <button onClick={() => picker.current?.click()} disabled={!folder} data-testid="files-upload">{t('uploadButton')}</button>
        <input ref={picker} type="file" multiple hidden data-testid="files-upload-input"
          onChange={(e) => { const files = [...(e.target.files ?? [])]; e.target.value = ''; if (files.length) void uploads.upload(files, folder?.path); }} />
      </div>
      <p className="drop-hint muted" data-testid="files-drop">{t('dropHere', { folder: folder?.path ?? '~' })}</p>
      {error && <p className="banner error" role="alert">{error}</p>}
      {note && <p className="banner" role="status" data-testid="files-note">{note}</p>}
      {uploads.ui}
      {folder?.truncated && <p className="banner" role="status" data-testid="files-truncated">{t('truncated', { count: folder.entries.length })}</p>}
      {!folder ? <p role="status">{t('loading')}</p> : folder.entries.length === 0 ? <p className="muted">{t('empty')}</p> : (
        <table className="files-table">
          <thead><tr><th>{t('name')}</th><th>{t('size')}</th><th>{t('modified')}</th><th /></tr></thead>
          <tbody>
            {folder.entries.map((e) => (
              <tr key={e.name} data-testid={`file-${e.name}`}>
                <td>{e.kind === 'dir' ? <button className="link" onClick={() => void load(`${folder.path === '/' ? '' : folder.path}/${e.name}`)}><FolderIcon /> {e.name}</button> : e.name}</td>
                <td>{e.kind === 'file' ? fmt.bytes(e.size) : e.kind === 'dir' ? t('folder') : ''}</td>
                <td>{fmt.dateTime(e.mtime * 1000)}</td>
                <td>{e.kind === 'file' && <button onClick={() => void download(e.name)} aria-label={t('downloadAria', { name: e.name })}>{t('download')}</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A folder drawn inline: an emoji needs a colour-emoji font, which many Linux desks lack (it showed as an empty box). */
function FolderIcon() {
  return (
    <svg className="folder-icon" width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d="M1.5 3.5h4.2l1.5 1.5h7.3v8h-13z" fill="none" stroke="currentColor" strokeWidth="1.2" strokeLinejoin="round" />
    </svg>
  );
}
