import type { ServerReportView } from '../../shared/models';

/**
 * The last probe report of each connection, kept while the window lives: coming back to a server
 * page (Back from the viewer, Close tunnel) shows it at once, labelled with its time, while a fresh
 * probe runs behind it, instead of 3–7 s of an empty "Probing…".
 */
export interface KeptReport { report: ServerReportView; at: number }

const kept = new Map<string, KeptReport>();

export function lastReport(connectionId: string): KeptReport | null {
  return kept.get(connectionId) ?? null;
}

export function keepReport(connectionId: string, report: ServerReportView, at: number = Date.now()): KeptReport {
  const k = { report, at };
  kept.set(connectionId, k);
  return k;
}
