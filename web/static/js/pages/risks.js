// The risk register: the heat map of open entries by likelihood and
// impact (GET /risk-register/portfolio) and the list (GET /risk-register).

import { h, page, table, when, badge, failure, figure, num } from '../dom.js';
import { get, q } from '../api.js';
import { current } from '../router.js';

// severityOf is an entry's severity label, whichever shape the API gives.
export function severityOf(e) {
  const s = e.severity;
  return s && typeof s === 'object' ? s.level || s.label || s.name || '' : s;
}

function heatMap(cells) {
  const at = {};
  for (const c of cells) at[c.likelihood + '/' + c.impact] = c.count;
  const levels = [1, 2, 3, 4, 5];
  return h('table', { class: 'heat', 'data-table': 'risk-heat-map' },
    h('thead', null, h('tr', null, h('th', null, 'likelihood \\ impact'), levels.map((i) => h('th', null, String(i))))),
    h('tbody', null, levels.slice().reverse().map((l) => h('tr', null, h('th', null, String(l)),
      levels.map((i) => {
        const n = at[l + '/' + i] || 0;
        const heat = n === 0 ? 0 : l * i >= 15 ? 3 : l * i >= 8 ? 2 : 1;
        return h('td', { class: 'h' + heat, 'data-cell': l + '/' + i }, String(n));
      })))));
}

export async function render(view, _params, nav) {
  let portfolio, list;
  try {
    [portfolio, list] = await Promise.all([get('/risk-register/portfolio'), get('/risk-register' + q({ page_size: 100 }))]);
  } catch (err) {
    if (current() === nav) page(view, 'risks', h('h1', null, 'Risk register'), failure(err));
    return;
  }
  if (current() !== nav) return;
  page(view, 'risks', h('h1', null, 'Risk register'),
    h('div', { class: 'cards' }, h('div', { class: 'card' },
      figure('Open entries', 'risks.open_count', num(portfolio.open_count)),
      ['critical', 'high', 'medium', 'low'].map((s) => figure(s, 'risks.open.' + s, num(portfolio.open_by_severity[s]))))),
    h('h2', null, 'Heat map of open entries'), heatMap(portfolio.heatmap || []),
    h('h2', null, 'Entries'), table('risks', [
      { title: 'Title', key: 'title', cell: (e) => h('a', { href: '#/risks/' + encodeURIComponent(e.id) }, e.title) },
      { title: 'Category', cell: (e) => e.category },
      { title: 'Likelihood', num: true, cell: (e) => String(e.likelihood) },
      { title: 'Impact', num: true, cell: (e) => String(e.impact) },
      { title: 'Score', num: true, key: 'risk_score', cell: (e) => String(e.risk_score) },
      { title: 'Severity', cell: (e) => badge(severityOf(e)) },
      { title: 'Status', key: 'status', cell: (e) => badge(e.status) },
      { title: 'Updated', cell: (e) => when(e.updated_at) },
    ], list.risk_entries));
}
