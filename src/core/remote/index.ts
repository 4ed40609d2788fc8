/** What the CLI, the Electron main process and the IPC contract use from the remote-server area. */
export { shellQuote, shellCommand } from './shellQuote';
export { probeServer, probeVideo, buildReport, bestVideoEncoder, remoteOptRootFrom, type ProbeOptions } from './probe';
export { queryGpus } from './gpuFigures';
export { computeFindings } from './findings';
export { buildSetupPlan, formatPlan, chooseBackend, type PlanOptions } from './setupPlan';
export { applyPlan, checkPlan, type ApplyOptions } from './planRunner';
export { listSessions, startSession, killSession, newOneTimePassword, displayEndpoint, endpointInListing, trustedListener, ownerText, type StartOptions, type SessionOptions, type SessionEndpoint, type DisplayOwner } from './vncSessions';
export type * from './types';
