export { ChunkQueue } from './chunkQueue';
export { downloadToFolder, type DownloadResult } from './download';
export { checkFileName } from './fileName';
export { defaultUploadFolder, homeFolder, listFolder, type RemoteEntry, type RemoteFolder } from './folders';
export { fileExistsError, localFileSource, rechunk, uploadToFolder, WRITE_CHUNK, WRITES_IN_FLIGHT, type UploadOptions, type UploadResult } from './upload';
export { exists as remoteExists } from './sftpOps';
