// The models list: per model its volume and latency over the last 24
// hours (GET /predictions/models/{id}/stats, the whole day and in six
// 4-hour windows for the charts) and its drift (GET /drift/trend, the
// last 30 days of data-drift reports).

import { h, page, table, num, badge, failure } from '../dom.js';
import { get, q, seg } from '../api.js';
import { bars, line } from '../chart.js';
import { current } from '../router.js';

const WINDOWS = 6, HOURS = 4;
// PAGE models a page: each costs 8 requests of the organization's
// standard rate limit, so the list is paged rather than drawn whole.
const PAGE = 10;

// windows are the six 4-hour windows ending at the next whole minute.
function windows() {
  const end = Math.ceil(Date.now() / 60000) * 60000;
  return Array.from({ length: WINDOWS }, (_, i) => {
    const to = end - (WINDOWS - 1 - i) * HOURS * 3600000;
    return { start_time: new Date(to - HOURS * 3600000).toISOString(), end_time: new Date(to).toISOString() };
  });
}

async function figures(m) {
  const stats = `/predictions/models/${seg(m.id)}/stats`;
  const [day, series, drift] = await Promise.all([
    get(stats),
    Promise.all(windows().map((w) => get(stats + q(w)))),
    get('/drift/trend' + q({ model_id: m.id, days: 30 })),
  ]);
  const scores = drift.data.map((d) => d.overall_drift_score);
  return { m, day, series, scores, latest: scores.length ? scores[scores.length - 1] : null };
}

function pager(n, more) {
  if (n === 1 && !more) return null;
  return h('p', { class: 'pager' },
    n > 1 ? h('a', { href: '#/models/page/' + (n - 1), id: 'models-prev' }, '← Previous') : null, ` Page ${n} `,
    more ? h('a', { href: '#/models/page/' + (n + 1), id: 'models-next' }, 'Next →') : null);
}

export async function render(view, params, nav) {
  const n = Math.max(1, parseInt(params.n || '1', 10) || 1);
  let rows, more;
  try {
    const list = await get('/models' + q({ skip: (n - 1) * PAGE, limit: PAGE + 1 }));
    more = list.length > PAGE;
    rows = await Promise.all(list.slice(0, PAGE).map(figures));
  } catch (err) {
    if (current() === nav) page(view, 'models', h('h1', null, 'Models'), failure(err));
    return;
  }
  if (current() !== nav) return;
  page(view, 'models', h('h1', null, 'Models'), table('models', [
    { title: 'Model', key: 'name', cell: (r) => h('a', { href: '#/models/' + encodeURIComponent(r.m.id) }, r.m.name) },
    { title: 'Version', key: 'version', cell: (r) => r.m.version },
    { title: 'Status', key: 'status', cell: (r) => badge(r.m.status) },
    { title: 'Predictions (24 h)', key: 'total_predictions', num: true, cell: (r) => num(r.day.total_predictions) },
    { title: 'Volume', key: 'volume', cell: (r) => bars(r.series.map((s) => s.total_predictions), { label: 'predictions per 4 hours', name: 'volume' }) },
    { title: 'Mean latency (ms)', key: 'avg_latency_ms', num: true, cell: (r) => num(r.day.avg_latency_ms) },
    { title: 'p95 latency (ms)', key: 'p95_latency_ms', num: true, cell: (r) => num(r.day.p95_latency_ms) },
    { title: 'Latency', key: 'latency', cell: (r) => line(r.series.map((s) => s.avg_latency_ms), { label: 'mean latency per 4 hours', name: 'latency' }) },
    { title: 'Drift score', key: 'drift_score', num: true, cell: (r) => num(r.latest) },
    { title: 'Drift (30 d)', key: 'drift', cell: (r) => line(r.scores, { label: 'drift score per report', name: 'drift' }) },
  ], rows.map((r) => ({ ...r, id: r.m.id }))), pager(n, more));
}
