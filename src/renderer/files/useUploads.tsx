import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { UPLOAD_CHUNK_BYTES } from '../../shared/contract';
import { errorCode, errorLine, useApi, useEvent } from '../app/api';
import { Dialog } from '../app/Dialog';
import { useFormat } from '../i18n/useFormat';

export interface UploadItem {
  key: number;
  uploadId: string | null;
  name: string;
  folder: string;
  total: number;
  /** Bytes the server has acknowledged. */
  bytes: number;
  state: 'running' | 'done' | 'cancelled' | 'failed' | 'skipped';
  error?: string;
}

/** base64 of bytes without a per-byte string (String.fromCharCode in slices keeps the stack small). */
function toBase64(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

let nextKey = 1;

/**
 * Uploads dropped files over the connection's SFTP: asks before replacing a file, sends the bytes
 * in order in contract-sized chunks, shows what the server acknowledged, cancels on request.
 */
export function useUploads(connectionId: string) {
  const api = useApi();
  const [items, setItems] = useState<UploadItem[]>([]);
  const [asking, setAsking] = useState<{ name: string; folder: string; answer(replace: boolean): void } | null>(null);
  const cancelled = useRef(new Set<number>());
  const patch = (key: number, p: Partial<UploadItem>) => setItems((xs) => xs.map((x) => (x.key === key ? { ...x, ...p } : x)));

  useEvent('files.progress', (p) => setItems((xs) => xs.map((x) => (x.uploadId === p.uploadId && x.state === 'running' ? { ...x, bytes: p.bytes } : x))));

  const uploadOne = useCallback(async (file: File, folder: string | undefined) => {
    const key = nextKey++;
    setItems((xs) => [...xs, { key, uploadId: null, name: file.name, folder: folder ?? '', total: file.size, bytes: 0, state: 'running' }]);
    const start = (overwrite: boolean) => api.invoke('files.uploadStart', { connectionId, ...(folder ? { folder } : {}), name: file.name, size: file.size, overwrite });
    let ticket;
    try {
      ticket = await start(false);
    } catch (e) {
      if (errorCode(e) !== 'FILE_EXISTS') return patch(key, { state: 'failed', error: errorLine(e) });
      const where = folder ?? '';
      const replace = await new Promise<boolean>((answer) => setAsking({ name: file.name, folder: where, answer }));
      setAsking(null);
      if (!replace) return patch(key, { state: 'skipped', folder: where });
      try {
        ticket = await start(true);
      } catch (e2) {
        return patch(key, { state: 'failed', error: errorLine(e2) });
      }
    }
    patch(key, { uploadId: ticket.uploadId, folder: ticket.folder });
    try {
      for (let off = 0; off < file.size; off += UPLOAD_CHUNK_BYTES) {
        if (cancelled.current.has(key)) return;
        const bytes = new Uint8Array(await file.slice(off, off + UPLOAD_CHUNK_BYTES).arrayBuffer());
        await api.invoke('files.uploadChunk', { uploadId: ticket.uploadId, offset: off, data: toBase64(bytes) });
      }
      if (cancelled.current.has(key)) return;
      const r = await api.invoke('files.uploadFinish', { uploadId: ticket.uploadId });
      patch(key, { state: 'done', bytes: r.bytes });
    } catch (e) {
      if (!cancelled.current.has(key)) patch(key, { state: 'failed', error: errorLine(e) });
    }
  }, [api, connectionId]);

  const upload = useCallback(async (files: File[], folder?: string) => {
    let to = folder;
    if (!to) {
      // The default folder (~/Desktop, else ~), asked once so every item and question names it.
      try {
        to = (await api.invoke('files.list', { connectionId })).path;
      } catch (e) {
        setItems((xs) => [...xs, ...files.map((f) => ({ key: nextKey++, uploadId: null, name: f.name, folder: '', total: f.size, bytes: 0, state: 'failed' as const, error: errorLine(e) }))]);
        return;
      }
    }
    // One at a time: each already fills the link, and the replace question comes one by one.
    for (const f of files) await uploadOne(f, to);
  }, [api, connectionId, uploadOne]);

  const cancel = useCallback(async (item: UploadItem) => {
    cancelled.current.add(item.key);
    if (item.uploadId) await api.invoke('files.uploadCancel', { uploadId: item.uploadId }).catch(() => {});
    patch(item.key, { state: 'cancelled' });
  }, [api]);

  const dismiss = (key: number) => setItems((xs) => xs.filter((x) => x.key !== key));

  const ui = (
    <>
      {asking && <ReplaceDialog name={asking.name} folder={asking.folder} onAnswer={asking.answer} />}
      {items.length > 0 && <UploadList items={items} onCancel={cancel} onDismiss={dismiss} />}
    </>
  );
  return { upload, items, ui };
}

function ReplaceDialog({ name, folder, onAnswer }: { name: string; folder: string; onAnswer(replace: boolean): void }) {
  const { t } = useTranslation('files');
  return (
    <Dialog title={t('replace.title', { name })} onCancel={() => onAnswer(false)} testId="replace-dialog">
      <p>{t('replace.text', { name, folder })}</p>
      <div className="actions">
        <button onClick={() => onAnswer(false)} autoFocus>{t('replace.keep')}</button>
        <button className="danger" onClick={() => onAnswer(true)}>{t('replace.replace')}</button>
      </div>
    </Dialog>
  );
}

function UploadList({ items, onCancel, onDismiss }: { items: UploadItem[]; onCancel(i: UploadItem): void; onDismiss(key: number): void }) {
  const { t } = useTranslation('files');
  const fmt = useFormat();
  return (
    <section className="uploads" aria-label={t('uploads')} data-testid="uploads">
      {items.map((i) => (
        <div key={i.key} className={`upload upload-${i.state}`} data-testid={`upload-${i.name}`} data-state={i.state}>
          <div className="upload-head">
            <span className="upload-name">{t('uploadingTo', { name: i.name, folder: i.folder })}</span>
            <span className="muted" data-testid="upload-state">{t(`state.${i.state}`)}{i.error ? `: ${i.error}` : ''}</span>
          </div>
          {i.state === 'running' && (
            <>
              <progress max={Math.max(1, i.total)} value={i.bytes} data-testid="upload-progress" aria-label={t('progress', { done: fmt.bytes(i.bytes), total: fmt.bytes(i.total) })} />
              <span className="muted">{t('progress', { done: fmt.bytes(i.bytes), total: fmt.bytes(i.total) })}</span>
              <button onClick={() => onCancel(i)} aria-label={t('cancelAria', { name: i.name })} data-testid="upload-cancel">{t('cancel')}</button>
            </>
          )}
          {i.state !== 'running' && <button className="link" onClick={() => onDismiss(i.key)}>{t('dismiss')}</button>}
        </div>
      ))}
    </section>
  );
}
