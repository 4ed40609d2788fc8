import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, registerCleanup, startSshd, type SshdBed } from '../../bed';
import type { ForwardView, Profile, UploadProgress } from '../../../src/shared/models';
import { until } from '../../helpers/until';
import { appCoreOnBed } from '../../helpers/appCore';
import type { AppCore } from '../../../src/core/app/createAppCore';

let bed: SshdBed;
let core: AppCore;
let web: http.Server;
let webPort: number;
let saveDir: string;
const forwardEvents: ForwardView[][] = [];
const progress: UploadProgress[] = [];

function headThrough(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: '/' }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  bed = await startSshd();
  // A web service on the server's side of the link (the bed's sshd reaches 127.0.0.1).
  web = http.createServer((_req, res) => res.end('jupyter-ish'));
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', () => r()));
  webPort = (web.address() as net.AddressInfo).port;
  registerCleanup(() => new Promise<void>((r) => web.close(() => r())));
  let dir: string;
  ({ core, dir } = appCoreOnBed({
    prefix: 'gd-app-ff-',
    emit: (event, payload) => {
      if (event === 'forwards.changed') forwardEvents.push(payload as ForwardView[]);
      if (event === 'files.progress') progress.push(payload as UploadProgress);
    },
    deps: { chooseSaveFolder: async () => saveDir },
  }));
  saveDir = path.join(dir, 'saved');
  fs.mkdirSync(saveDir);
}, 60_000);
afterAll(cleanupAll);

async function connect(name: string, forwards: Profile['forwards']): Promise<string> {
  const h = core.handlers();
  const p = await h['profiles.save']({
    profile: {
      name, host: '127.0.0.1', port: bed.port, user: bed.user, jumpHosts: [], auth: { kind: 'key-file', path: bed.userKeyPath },
      display: {}, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards,
    },
  });
  return (await h['connections.open']({ profileId: p.id })).id;
}

describe('forwards beside the desktop', () => {
  it('open on their own, say whether they answer HTTP through 127.0.0.1, and come back on the same port after the server restarts', async () => {
    const h = core.handlers();
    const dead = await new Promise<number>((r) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as net.AddressInfo).port; s.close(() => r(p)); }); });
    const cid = await connect('fw', [
      { kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: webPort },
      { kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: dead },
    ]);
    const opened = await h['forwards.open']({ connectionId: cid });
    expect(opened.map((f) => [f.remotePort, f.localHost, f.http])).toEqual([[webPort, '127.0.0.1', 'yes'], [dead, '127.0.0.1', 'no']]);
    const jupyter = opened[0];
    expect(jupyter.url).toBe(`http://127.0.0.1:${jupyter.localPort}/`);
    expect(opened[1].url).toBeNull();
    expect(await headThrough(jupyter.localPort)).toBe(200);
    // Opening again (the viewer after the server page) reuses them.
    expect((await h['forwards.open']({ connectionId: cid })).map((f) => f.id)).toEqual(opened.map((f) => f.id));

    await bed.kill();
    await until(() => h['connections.list']({}), (cs) => cs.find((c) => c.id === cid)?.state === 'reconnecting', 'reconnecting');
    await bed.restart();
    await until(() => h['connections.list']({}), (cs) => cs.find((c) => c.id === cid)?.state === 'ready', 'ready again', 120_000);
    const after = await until(() => h['forwards.list']({}), (fs_) => fs_.find((f) => f.id === jupyter.id)?.http === 'yes', 'the forward answers again (asked again after the reconnect)');
    expect(after.find((f) => f.id === jupyter.id)!.localPort).toBe(jupyter.localPort);
    expect(await headThrough(jupyter.localPort)).toBe(200);

    await h['forwards.close']({ forwardId: opened[1].id });
    expect((await h['forwards.list']({})).map((f) => f.id)).toEqual([jupyter.id]);
    await h['connections.close']({ connectionId: cid });
    expect(await h['forwards.list']({})).toEqual([]);
  });
});

describe('files through the contract', () => {
  it('upload in chunks with progress, refuse overwrite until asked, cancel leaves nothing, list, download', async () => {
    const h = core.handlers();
    const cid = await connect('files', []);
    const folder = path.posix.join(bed.home, `gd-app-files-${process.pid}-${randomBytes(3).toString('hex')}`);
    fs.mkdirSync(folder);
    fs.chownSync(folder, fs.statSync(bed.home).uid, fs.statSync(bed.home).gid);
    registerCleanup(() => fs.rmSync(folder, { recursive: true, force: true }));
    const data = randomBytes(3 * 512 * 1024 + 99);
    const send = async (overwrite: boolean) => {
      const t = await h['files.uploadStart']({ connectionId: cid, folder, name: 'model.ckpt', size: data.length, overwrite });
      for (let off = 0; off < data.length; off += 512 * 1024) await h['files.uploadChunk']({ uploadId: t.uploadId, offset: off, data: data.subarray(off, off + 512 * 1024).toString('base64') });
      return { t, r: await h['files.uploadFinish']({ uploadId: t.uploadId }) };
    };
    const { t, r } = await send(false);
    expect(r).toEqual({ path: `${folder}/model.ckpt`, bytes: data.length });
    expect(createHash('sha256').update(fs.readFileSync(r.path)).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
    expect(progress.filter((p) => p.uploadId === t.uploadId).at(-1)).toEqual({ uploadId: t.uploadId, bytes: data.length, total: data.length });
    await expect(h['files.uploadStart']({ connectionId: cid, folder, name: 'model.ckpt', size: 1, overwrite: false })).rejects.toMatchObject({ code: 'FILE_EXISTS' });
    await send(true);

    const c = await h['files.uploadStart']({ connectionId: cid, folder, name: 'half.bin', size: data.length, overwrite: false });
    await h['files.uploadChunk']({ uploadId: c.uploadId, offset: 0, data: data.subarray(0, 512 * 1024).toString('base64') });
    await h['files.uploadCancel']({ uploadId: c.uploadId });
    expect(fs.readdirSync(folder)).toEqual(['model.ckpt']);
    await expect(h['files.uploadChunk']({ uploadId: c.uploadId, offset: 512 * 1024, data: 'AA==' })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });

    const list = await h['files.list']({ connectionId: cid, path: folder });
    expect(list.entries.map((e) => [e.name, e.kind, e.size])).toEqual([['model.ckpt', 'file', data.length]]);
    const got = await h['files.download']({ connectionId: cid, path: `${folder}/model.ckpt` });
    expect(got).toEqual({ file: path.join(saveDir, 'model.ckpt'), bytes: data.length });
    expect(fs.readFileSync(got!.file).equals(data)).toBe(true);
    const dflt = await h['files.list']({ connectionId: cid });
    expect(dflt.path).toBe(fs.existsSync(path.join(bed.home, 'Desktop')) ? `${bed.home}/Desktop` : bed.home);
  });
});
