/**
 * /console/status: the service's health as `GET /v1/status` gives it (src/health/status.ts), for
 * every member: each provider's and model's state, success and time to completion over 5 minutes,
 * 1 hour and 24 hours with a sparkline of the last day, open circuits and the last incidents.
 */
import type { Hono } from "hono";
import { raw } from "hono/html";
import type { ServiceStatus } from "../../services/contracts/status";
import { serviceStatus } from "../../services/status";
import type { ConsoleEnv } from "../context";
import { Layout } from "../layout";
import { render } from "../render";
import { requireMember } from "../session";
import { Sparkline } from "../status-spark";

const STYLE = `
.state { font-weight: 600; }
.state-operational { color: var(--ok); }
.state-degraded { color: #b26a00; }
.state-down { color: var(--err); }
.spark-line { fill: none; stroke: var(--accent); stroke-width: 1.5; }
.spark-dot { fill: var(--accent); }
.spark-full { stroke: var(--line); stroke-dasharray: 2 2; }
table.status td.num { text-align: right; font-variant-numeric: tabular-nums; }
`;

type Window = ServiceStatus["providers"][number]["windows"]["5m"];

const pct = (w: Window) => (w.success_rate === null ? "—" : `${(w.success_rate * 100).toFixed(1)} %`);
const secs = (s: number | null) => (s === null ? "—" : s < 60 ? `${s} s` : `${Math.round(s / 6) / 10} min`);

function State({ state }: { state: string }) {
  return <span class={`state state-${state}`}>{state}</span>;
}

function Rows(props: { name: string; state: string; windows: Record<"5m" | "1h" | "24h", Window>; hourly: (number | null)[] }) {
  return (
    <tr>
      <th scope="row">{props.name}</th>
      <td>
        <State state={props.state} />
      </td>
      {(["5m", "1h", "24h"] as const).map((k) => (
        <td class="num">
          {pct(props.windows[k])} <small>({props.windows[k].attempts})</small>
        </td>
      ))}
      <td class="num">
        {secs(props.windows["1h"].p50_seconds)} / {secs(props.windows["1h"].p95_seconds)}
      </td>
      <td>
        <Sparkline values={props.hourly} label={props.name} />
      </td>
    </tr>
  );
}

function Head({ first }: { first: string }) {
  return (
    <thead>
      <tr>
        <th scope="col">{first}</th>
        <th scope="col">State</th>
        <th scope="col">Success 5 min</th>
        <th scope="col">1 h</th>
        <th scope="col">24 h</th>
        <th scope="col">p50 / p95 (1 h)</th>
        <th scope="col">Last 24 h</th>
      </tr>
    </thead>
  );
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/status", requireMember, async (c) => {
    const member = c.get("member");
    const s = await serviceStatus(c.env);
    return render(
      c,
      <Layout title="Status" member={member} active="status">
        <style>{raw(STYLE)}</style>
        <p>
          Overall: <State state={s.state} /> · as of {s.generated_at} · the same figures as <a href="/v1/status">/v1/status</a>. A
          route that fails for several callers at once is skipped by new work until a probe succeeds.
        </p>
        <h2>Open circuits</h2>
        {s.open_circuits.length === 0 ? (
          <p>None: every route takes work.</p>
        ) : (
          <ul>
            {s.open_circuits.map((o) => (
              <li>
                {o.provider} · {o.upstream_model}: {o.state === "open" ? "skipped" : "probing"}
                {o.retry_at ? `, probe from ${o.retry_at}` : ""}
              </li>
            ))}
          </ul>
        )}
        <h2>Providers</h2>
        <div class="table-scroll">
          <table class="status">
            <Head first="Provider" />
            <tbody>
              {s.providers.map((p) => (
                <Rows name={p.provider} state={p.state} windows={p.windows} hourly={p.hourly_success} />
              ))}
            </tbody>
          </table>
        </div>
        <h2>Models</h2>
        <div class="table-scroll">
          <table class="status">
            <Head first="Model" />
            <tbody>
              {s.models.map((m) => (
                <Rows name={m.model} state={m.state} windows={m.windows} hourly={m.hourly_success} />
              ))}
            </tbody>
          </table>
        </div>
        <h2>Incidents</h2>
        {s.incidents.length === 0 ? (
          <p>No incident recorded.</p>
        ) : (
          <div class="table-scroll">
            <table class="status">
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Ended</th>
                  <th scope="col">Route</th>
                  <th scope="col">Models</th>
                  <th scope="col">What failed</th>
                </tr>
              </thead>
              <tbody>
                {s.incidents.map((i) => (
                  <tr>
                    <td>{i.started_at}</td>
                    <td>{i.ended_at ?? "ongoing"}</td>
                    <td>
                      {i.provider} · {i.upstream_model}
                    </td>
                    <td>{i.models.join(", ")}</td>
                    <td>{i.what_failed}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Layout>,
    );
  });
}
