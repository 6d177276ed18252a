/** The rules the Requests pages add to the task pages' stylesheet: status colours, the time line, the side-by-side results. */
export const REQUEST_STYLE = `
.code-2xx { color: var(--ok); font-weight: 600; }
.code-4xx, .code-5xx { color: var(--err); font-weight: 600; }
input[type="datetime-local"] { padding: .35rem .5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
ol.timeline { list-style: none; margin: .5rem 0 1rem; padding: 0; display: grid; gap: .35rem; }
ol.timeline li { display: grid; grid-template-columns: minmax(10rem, 16rem) minmax(0, 1fr); gap: .75rem; align-items: center; }
ol.timeline .label { font-size: .85rem; overflow-wrap: anywhere; }
ol.timeline .track { position: relative; height: 1.1rem; background: var(--panel); border: 1px solid var(--line); border-radius: 4px; }
ol.timeline .bar { position: absolute; top: 0; bottom: 0; min-width: 3px; border-radius: 3px; background: var(--accent); }
ol.timeline .bar.outcome-failed, ol.timeline .bar.outcome-refused, ol.timeline .bar.outcome-timeout { background: var(--err); }
ol.timeline .bar.outcome-succeeded { background: var(--ok); }
ol.timeline .bar.open { opacity: .5; }
.timeline-scale { display: flex; justify-content: space-between; font-size: .8rem; color: var(--muted); margin-left: calc(min(16rem, 40%) + .75rem); }
.side-by-side { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: 1rem; }
.side-by-side > section { border: 1px solid var(--line); border-radius: 8px; padding: .75rem; min-width: 0; }
.side-by-side h2 { margin-top: 0; }
/* A model's select may be wider than a phone: it shrinks inside its form, which keeps to the page. */
[data-run-again] form.inline { display: flex; max-width: 100%; }
[data-run-again] select { flex: 1 1 12rem; min-width: 0; }
pre.body { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .75rem; overflow: auto;
  max-height: 28rem; font-size: .85rem; white-space: pre-wrap; overflow-wrap: anywhere; }
`;
