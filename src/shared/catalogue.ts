/**
 * The shape every translation of a catalogue must have: exactly the English catalogue's keys, each a
 * string. A zh-CN file typed `Catalogue<typeof en>` fails typecheck on a missing or an extra key.
 */
export type Catalogue<T> = { [K in keyof T]: T[K] extends string ? string : Catalogue<T[K]> };
