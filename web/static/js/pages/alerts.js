// The alerts inbox: GET /alerts/instances, and each alert acknowledged,
// snoozed for an hour or resolved through its POST; the row shows the
// state the API answers with.

import { h, page, table, when, badge, failure } from '../dom.js';
import { get, post, q, seg } from '../api.js';
import { current } from '../router.js';

const MOVES = [
  ['acknowledge', 'Acknowledge', (a) => a.status === 'open' || a.status === 'snoozed', () => ({})],
  ['snooze', 'Snooze 1 h', (a) => a.status !== 'resolved',
    () => ({ until: new Date(Math.ceil(Date.now() / 1000) * 1000 + 3600000).toISOString().replace(/\.\d+Z$/, 'Z') })],
  ['resolve', 'Resolve', (a) => a.status !== 'resolved', () => ({})],
];

export async function render(view, _params, nav) {
  let list, models;
  try {
    [list, models] = await Promise.all([get('/alerts/instances' + q({ page_size: 100 })), get('/models' + q({ limit: 1000 }))]);
  } catch (err) {
    if (current() === nav) page(view, 'alerts', h('h1', null, 'Alerts'), failure(err));
    return;
  }
  if (current() !== nav) return;
  const names = Object.fromEntries(models.map((m) => [m.id, `${m.name} ${m.version}`]));
  const message = h('p', { role: 'status', id: 'alerts-message', class: 'muted' });
  const actions = (a) => {
    const cell = h('span', null);
    const draw = () => cell.replaceChildren(...MOVES.map(([move, label, allowed, body]) => h('button', {
      class: 'act', type: 'button', 'data-action': move, disabled: !allowed(a),
      onclick: async () => {
        message.textContent = '';
        try {
          Object.assign(a, await post(`/alerts/instances/${seg(a.id)}/${move}`, body()));
          const row = cell.closest('tr');
          row.querySelector('[data-col=status]').replaceChildren(badge(a.status));
          row.querySelector('[data-col=snoozed_until]').textContent = a.snoozed_until ? when(a.snoozed_until) : '—';
          draw();
        } catch (err) {
          message.className = 'error';
          message.textContent = err.message;
        }
      },
    }, label)));
    draw();
    return cell;
  };
  page(view, 'alerts', h('h1', null, 'Alerts'), message, table('alerts', [
    { title: 'Triggered', cell: (a) => when(a.triggered_at) },
    { title: 'Rule', key: 'rule_name', cell: (a) => a.rule_name },
    { title: 'Model', cell: (a) => (a.model_id ? h('a', { href: '#/models/' + encodeURIComponent(a.model_id) }, names[a.model_id] || a.model_id) : '—') },
    { title: 'Severity', key: 'severity', cell: (a) => badge(a.severity) },
    { title: 'Status', key: 'status', cell: (a) => badge(a.status) },
    { title: 'Snoozed until', key: 'snoozed_until', cell: (a) => (a.snoozed_until ? when(a.snoozed_until) : '—') },
    { title: 'Count', num: true, key: 'count', cell: (a) => String(a.count) },
    { title: '', cell: actions },
  ], list.alerts));
}
