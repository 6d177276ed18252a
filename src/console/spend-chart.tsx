/**
 * Spend per day by capability as a stacked bar chart in inline SVG: no script, no external
 * asset. Accessible: the SVG is an image with a title and a description, every bar segment has
 * its own title (tooltip), and the same figures follow in a table.
 */

import { dec, fmt } from "../lib/decimal";
import { CAPABILITIES } from "../services/catalog";

export interface SpendDay {
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** Credits per capability that day, decimal strings. */
  by: Record<string, string>;
}

/**
 * One colour per capability, never shared: as many as there are capabilities, told apart by hue
 * and lightness (Kelly's colours of maximum contrast), each capability keeping its colour on every
 * chart (its place in CAPABILITIES, not in this chart's legend).
 */
export const PALETTE = [
  "#0067a5",
  "#f38400",
  "#008856",
  "#be0032",
  "#875692",
  "#f3c300",
  "#a1caf1",
  "#882d17",
  "#8db600",
  "#e68fac",
  "#604e97",
  "#c2b280",
  "#848482",
  "#f99379",
] as const;

/** A name the catalog does not know (older usage rows): grey, outside the palette. */
const UNKNOWN = "#5b6470";

export function capabilityColor(capability: string): string {
  const at = (CAPABILITIES as readonly string[]).indexOf(capability);
  return at >= 0 ? (PALETTE[at] ?? UNKNOWN) : UNKNOWN;
}
const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 12, right: 12, bottom: 28, left: 56 };

/** A round upper bound for the axis: 1, 2 or 5 times a power of ten. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 2, 5, 10]) if (m * p >= value) return m * p;
  return 10 * p;
}

export function SpendChart(props: { days: SpendDay[]; title: string }) {
  const capabilities = [...new Set(props.days.flatMap((d) => Object.keys(d.by)))].sort();
  const color = capabilityColor;
  const totals = props.days.map((d) => Object.values(d.by).reduce((s, v) => s.plus(v), dec(0)));
  const grand = fmt(totals.reduce((s, v) => s.plus(v), dec(0)));
  const max = niceMax(Math.max(0, ...totals.map((t) => Number(t.toString()))));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const slot = innerW / Math.max(1, props.days.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const ticks = [0, max / 2, max];
  const description =
    capabilities.length === 0
      ? `No credits were spent in the ${props.days.length} days shown.`
      : `${grand} credits spent over ${props.days.length} days, by capability: ${capabilities
          .map((cap) => `${cap} ${fmt(props.days.reduce((s, d) => s.plus(d.by[cap] ?? "0"), dec(0)))}`)
          .join(", ")}.`;
  return (
    <figure class="spend-chart">
      <svg
        role="img"
        aria-labelledby="spend-title spend-desc"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width="100%"
        style="max-width: 100%; height: auto"
      >
        <title id="spend-title">{props.title}</title>
        <desc id="spend-desc">{description}</desc>
        {ticks.map((t) => (
          <g>
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(t)} y2={y(t)} stroke="currentColor" stroke-opacity="0.15" />
            <text x={PAD.left - 6} y={y(t) + 4} text-anchor="end" font-size="11" fill="currentColor">
              {Number.isInteger(t) ? t : t.toFixed(1)}
            </text>
          </g>
        ))}
        {props.days.map((d, i) => {
          let base = 0;
          const x = PAD.left + i * slot + (slot - barW) / 2;
          return (
            <g>
              {capabilities
                .filter((cap) => d.by[cap] && dec(d.by[cap] as string).gt(0))
                .map((cap) => {
                  const v = Number(d.by[cap]);
                  const top = y(base + v);
                  const h = y(base) - top;
                  base += v;
                  return (
                    <rect x={x} y={top} width={barW} height={Math.max(0.5, h)} fill={color(cap)}>
                      <title>{`${d.day} · ${cap}: ${d.by[cap]} credits`}</title>
                    </rect>
                  );
                })}
              {i % 5 === 0 || i === props.days.length - 1 ? (
                <text x={x + barW / 2} y={HEIGHT - 10} text-anchor="middle" font-size="10" fill="currentColor">
                  {d.day.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption>
        {capabilities.length ? (
          <ul class="legend" style="list-style: none; display: flex; flex-wrap: wrap; gap: .75rem; padding: 0">
            {capabilities.map((cap) => (
              <li>
                <svg width="12" height="12" aria-hidden="true">
                  <rect width="12" height="12" fill={color(cap)} />
                </svg>{" "}
                {cap}
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">{description}</p>
        )}
      </figcaption>
      {capabilities.length ? (
        <details>
          <summary>The figures as a table</summary>
          <div class="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  {capabilities.map((cap) => (
                    <th scope="col" class="num">
                      {cap}
                    </th>
                  ))}
                  <th scope="col" class="num">
                    Total
                  </th>
                </tr>
              </thead>
              <tbody>
                {props.days
                  .map((d, i) => ({ d, total: totals[i] }))
                  .filter(({ total }) => total?.gt(0))
                  .map(({ d, total }) => (
                    <tr>
                      <th scope="row">{d.day}</th>
                      {capabilities.map((cap) => (
                        <td class="num">{d.by[cap] ?? "0"}</td>
                      ))}
                      <td class="num">{total ? fmt(total) : "0"}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        </details>
      ) : null}
    </figure>
  );
}
