import { KEYSYM } from './rfbSession';

const { Control_L, Alt_L, Super_L, Tab, Escape, Print, F1, Shift_L } = KEYSYM;

/** Key combinations the local OS would swallow, sent to the remote desktop from the menu. */
export const KEY_COMBOS: { label: string; keys: number[]; /** viewer:keys.* where the label has words in it. */ words?: 'super' | 'escape' | 'printScreen' }[] = [
  { label: 'Ctrl+Alt+Backspace', keys: [Control_L, Alt_L, KEYSYM.BackSpace] },
  { label: 'Alt+Tab', keys: [Alt_L, Tab] },
  { label: 'Alt+Shift+Tab', keys: [Alt_L, Shift_L, Tab] },
  { label: 'Super (Windows key)', keys: [Super_L], words: 'super' },
  { label: 'Ctrl+Esc', keys: [Control_L, Escape] },
  { label: 'Escape', keys: [Escape], words: 'escape' },
  { label: 'Print Screen', keys: [Print], words: 'printScreen' },
  { label: 'Alt+F4', keys: [Alt_L, F1 + 3] },
  ...[1, 2, 3, 4, 5, 6, 7].map((n) => ({ label: `Ctrl+Alt+F${n}`, keys: [Control_L, Alt_L, F1 + n - 1] })),
];
