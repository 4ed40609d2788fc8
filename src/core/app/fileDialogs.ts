/**
 * Where the app's files are chosen: Electron's native dialogs in the main process; in the browser
 * harness, a stand-in the tests set (test/e2e/fixtures.ts) because Chromium cannot show them. The
 * chosen path never travels from the window, so a window cannot make core read or write a file.
 */
export type FilePurpose = 'key' | 'certificate' | 'profiles';

export interface FileDialogs {
  /** An existing file to read; null when the user cancels. */
  openFile(o: { purpose: FilePurpose }): Promise<string | null>;
  /** Where to write; null when the user cancels. */
  saveFile(o: { purpose: FilePurpose; defaultName: string }): Promise<string | null>;
}
