/** A small line chart of the last N values (SVG; no chart library, CSP-safe). */
export function Sparkline(props: { values: (number | null)[]; max?: number; width?: number; height?: number; label: string; unit?: string; color?: string; slots?: number }) {
  const w = props.width ?? 240;
  const h = props.height ?? 48;
  const vals = props.values;
  const max = props.max ?? Math.max(1, ...vals.map((v) => v ?? 0));
  // A fixed time axis (one slot per sample, newest at the right edge) so the chart fills as time passes.
  const n = Math.max(props.slots ?? 60, vals.length, 2);
  const first = n - vals.length;
  const pts: string[] = [];
  vals.forEach((v, i) => {
    if (v === null) return;
    const x = ((first + i) / (n - 1)) * w;
    const y = h - Math.min(1, v / max) * (h - 2) - 1;
    pts.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  });
  const last = [...vals].reverse().find((v) => v !== null);
  return (
    <figure className="spark">
      <svg width={w} height={h} viewBox={`0 0 ${w} ${h}`} role="img" aria-label={`${props.label}: ${last ?? '—'}${props.unit ?? ''}`}>
        <rect x="0" y="0" width={w} height={h} className="spark-bg" />
        {pts.length > 1 && <polyline points={pts.join(' ')} fill="none" stroke={props.color ?? 'var(--accent)'} strokeWidth="1.5" />}
      </svg>
      <figcaption>{props.label}</figcaption>
    </figure>
  );
}
