/** Ready-made commands for the native viewers (each accepts host::port for a raw TCP port). */
export function viewerCommands(host: string, port: number): { turbovnc: string; tigervnc: string; realvnc: string } {
  const target = `${host}::${port}`;
  return {
    turbovnc: `/opt/TurboVNC/bin/vncviewer ${target}`,
    tigervnc: `vncviewer ${target}`,
    realvnc: `vncviewer ${target}`,
  };
}
