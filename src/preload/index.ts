import './zodJitless';
import { contextBridge, ipcRenderer } from 'electron';
import { eventNames, methodNames } from '../shared/contract';
import { BRIDGE_GLOBAL } from '../shared/bridge';
import { createBridge } from './bridge';

// Sandboxed preload: bundled into one CommonJS file whose only require is 'electron'.
contextBridge.exposeInMainWorld(
  BRIDGE_GLOBAL,
  createBridge(ipcRenderer, { methods: methodNames, events: eventNames }, (e) => console.error('gpu-desk event listener failed:', e)),
);
