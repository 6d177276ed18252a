/**
 * A success-rate sparkline in inline SVG (no script, no external asset): one point per hour over
 * the last 24 hours, gaps where nothing ran. An image with a title; the figures are in the table
 * beside it.
 */
const W = 120;
const H = 24;

export function Sparkline(props: { values: (number | null)[]; label: string }) {
  const n = props.values.length;
  const x = (i: number) => (n <= 1 ? 0 : (i / (n - 1)) * W);
  const y = (v: number) => H - 2 - v * (H - 4);
  // Runs of hours with data, each drawn as its own line; a lone hour as a dot.
  const runs: { i: number; v: number }[][] = [];
  let run: { i: number; v: number }[] = [];
  props.values.forEach((v, i) => {
    if (v === null) {
      if (run.length) runs.push(run);
      run = [];
    } else run.push({ i, v });
  });
  if (run.length) runs.push(run);
  const known = props.values.filter((v): v is number => v !== null);
  const low = known.length ? Math.min(...known) : null;
  const title =
    low === null
      ? `${props.label}: nothing ran in the last 24 hours`
      : `${props.label}: hourly success over the last 24 hours, lowest ${Math.round(low * 100)} %`;
  return (
    <svg class="spark" role="img" aria-label={title} viewBox={`0 0 ${W} ${H}`} width={W} height={H}>
      <title>{title}</title>
      <line x1="0" x2={W} y1={y(1)} y2={y(1)} class="spark-full" />
      {runs.map((r) =>
        r.length === 1 ? (
          <circle cx={x(r[0]?.i ?? 0)} cy={y(r[0]?.v ?? 0)} r="1.5" class="spark-dot" />
        ) : (
          <polyline points={r.map((p) => `${x(p.i).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ")} class="spark-line" />
        ),
      )}
    </svg>
  );
}
