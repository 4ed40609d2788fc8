/** Pointer lock's arithmetic, without the DOM (unit-tested under Node). */

export interface Point { x: number; y: number }

/** The position after a relative move, clamped to a canvas of `w`×`h` CSS pixels (as noVNC clamps). */
export function movedBy(p: Point, dx: number, dy: number, w: number, h: number): Point {
  const clamp = (v: number, max: number) => Math.min(Math.max(v, 0), Math.max(max - 1, 0));
  return { x: clamp(p.x + dx, w), y: clamp(p.y + dy, h) };
}
