/** The few rules the task and usage pages add to the layout's stylesheet (their own elements only). */
export const CONSOLE_TASK_STYLE = `
form.filters { display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: end; margin: 0 0 1rem; }
form.filters label { display: grid; gap: .2rem; }
input[type="date"] { padding: .35rem .5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
a.button { padding: .4rem .8rem; border-radius: 6px; border: 1px solid var(--accent); text-decoration: none; }
nav.pager { display: flex; gap: 1rem; }
.empty { color: var(--muted); }
.crumbs { margin: -.5rem 0 1rem; color: var(--muted); }
.status { font-weight: 600; }
.status-succeeded { color: var(--ok); }
.status-failed, .status-canceled { color: var(--err); }
.status-queued, .status-running { color: var(--accent); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; margin: 0 0 1rem; }
dl.facts dt { color: var(--muted); font-weight: 600; }
dl.facts dd { margin: 0; }
progress { width: 14rem; height: 1rem; vertical-align: middle; }
.previews { display: flex; flex-wrap: wrap; gap: 1rem; }
figure.preview { margin: 0; padding: .5rem; border: 1px solid var(--line); border-radius: 8px; background: var(--panel); max-width: 100%; }
figure.preview img, figure.preview video { display: block; max-width: min(100%, 28rem); height: auto; border-radius: 4px; }
figure.preview audio { display: block; width: 22rem; max-width: 100%; }
figure.preview figcaption { font-size: .85rem; color: var(--muted); margin-top: .35rem; }
pre.envelope, pre.text-output { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .75rem;
  overflow: auto; max-height: 32rem; font-size: .85rem; }
pre.text-output { white-space: pre-wrap; max-height: none; }
.error { color: var(--err); }
`;
