import { KEYSYM } from './rfbSession';

const { Control_L, Alt_L, Super_L, Tab, Escape, Print, F1, Shift_L } = KEYSYM;

/** Key combinations the local OS would swallow, sent to the remote desktop from the menu. */
export const KEY_COMBOS: { label: string; keys: number[] }[] = [
  { label: 'Ctrl+Alt+Backspace', keys: [Control_L, Alt_L, KEYSYM.BackSpace] },
  { label: 'Alt+Tab', keys: [Alt_L, Tab] },
  { label: 'Alt+Shift+Tab', keys: [Alt_L, Shift_L, Tab] },
  { label: 'Super (Windows key)', keys: [Super_L] },
  { label: 'Ctrl+Esc', keys: [Control_L, Escape] },
  { label: 'Escape', keys: [Escape] },
  { label: 'Print Screen', keys: [Print] },
  { label: 'Alt+F4', keys: [Alt_L, F1 + 3] },
  ...[1, 2, 3, 4, 5, 6, 7].map((n) => ({ label: `Ctrl+Alt+F${n}`, keys: [Control_L, Alt_L, F1 + n - 1] })),
];
