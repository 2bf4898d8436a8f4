// The organization overview: GET /dashboard/statistics, then the live
// channel's pushes of the same figures; the alert heat map of the last 30
// days (GET /executive-dashboard/risk-register).

import { h, page, figure, num, when, failure, empty } from '../dom.js';
import { get } from '../api.js';
import { connect } from '../live.js';
import { current } from '../router.js';

const CARDS = [
  ['Models', 'models', [['Total', 'total'], ['Active', 'active'], ['Inactive', 'inactive']]],
  ['Predictions', 'predictions', [['Total', 'total'], ['Today', 'today'], ['Average per day', 'avg_per_day']]],
  ['Alerts', 'alerts', [['Active', 'active'], ['Acknowledged', 'acknowledged'], ['Resolved', 'resolved']]],
  ['Drift', 'drift', [['Models with drift', 'models_with_drift'], ['High severity', 'high_severity']]],
];

function cards(stats) {
  return h('div', { class: 'cards' }, CARDS.map(([title, group, rows]) => h('section', { class: 'card' },
    h('h3', null, title),
    rows.map(([label, key]) => figure(label, `${group}.${key}`, num(stats[group] ? stats[group][key] : null))))));
}

function heatMap(map) {
  if (!map.cells || map.cells.length === 0) return empty('alert-heat-map');
  const at = {};
  for (const c of map.cells) at[c.likelihood + '/' + c.impact] = c.models.length;
  return h('table', { class: 'heat', 'data-table': 'alert-heat-map' },
    h('thead', null, h('tr', null, h('th', null, 'likelihood \\ impact'), map.impacts.map((i) => h('th', null, i)))),
    h('tbody', null, map.likelihoods.slice().reverse().map((l) => h('tr', null, h('th', null, l),
      map.impacts.map((i) => {
        const n = at[l + '/' + i] || 0;
        return h('td', { class: 'h' + Math.min(n, 3) }, String(n));
      })))));
}

export async function render(view, _params, nav) {
  let stats, map;
  try {
    [stats, map] = await Promise.all([get('/dashboard/statistics'), get('/executive-dashboard/risk-register')]);
  } catch (err) {
    if (current() === nav) page(view, 'overview', h('h1', null, 'Overview'), failure(err));
    return undefined;
  }
  if (current() !== nav) return undefined;
  const state = h('span', { class: 'live live-off', id: 'live-state' }, 'connecting');
  const stamp = h('p', { class: 'muted' }, 'Figures as of ', h('span', { id: 'generated-at' }, when(stats.generated_at)));
  const holder = h('div', null, cards(stats));
  page(view, 'overview', h('h1', null, 'Overview', state), stamp, holder,
    h('h2', null, 'Models by alerts in the last 30 days'), heatMap(map),
    h('p', { class: 'muted' }, map.note || ''));
  return connect((s, m) => {
    holder.replaceChildren(cards(s));
    stamp.lastChild.textContent = when(s.generated_at || m.sent_at);
    view.setAttribute('data-sequence', String(m.sequence));
  }, (st) => {
    state.textContent = st;
    state.className = 'live ' + (st === 'live' ? 'live-on' : 'live-off');
  });
}
