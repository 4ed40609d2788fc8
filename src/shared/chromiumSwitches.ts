/**
 * The Chromium switches the viewer ships with, in one place: the Electron app appends them before
 * its first window (src/main/index.ts), and the harness's browsers (bench:viewer, the e2e specs)
 * get the same on their command line, so what the bench measures is what the product runs.
 */
export const VIEWER_SWITCHES: readonly (readonly [name: string, value?: string])[] = [
  // The remote desktop's pixels are sRGB already: on a monitor with another colour profile Chromium
  // would colour-convert the canvas on every frame, which costs CPU and shows colours the server
  // never drew (the "1:1" pixel-exact promise is about exactly those pixels).
  ['force-color-profile', 'srgb'],
  // A covered or minimised viewer (and a headless tab, which counts as hidden) keeps draining its
  // connection and drawing; throttled, the server's queue would grow and the picture lag when shown.
  ['disable-background-timer-throttling'],
  ['disable-backgrounding-occluded-windows'],
  ['disable-renderer-backgrounding'],
];

/** VIEWER_SWITCHES as command-line arguments. */
export function viewerSwitchArgs(): string[] {
  return VIEWER_SWITCHES.map(([name, value]) => (value === undefined ? `--${name}` : `--${name}=${value}`));
}
