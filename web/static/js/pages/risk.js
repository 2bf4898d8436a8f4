// A risk entry with its audit trail (GET /risk-register/{id}/history).

import { h, page, table, when, badge, failure } from '../dom.js';
import { get, seg } from '../api.js';
import { current } from '../router.js';
import { severityOf } from './risks.js';

function props(pairs) {
  return h('dl', { class: 'props' }, pairs.map(([k, name, v]) => [h('dt', null, k), h('dd', { 'data-field': name }, v)]));
}

export async function render(view, { id }, nav) {
  let entry, history;
  try {
    [entry, history] = await Promise.all([get('/risk-register/' + seg(id)), get(`/risk-register/${seg(id)}/history`)]);
  } catch (err) {
    if (current() === nav) page(view, 'risk', h('h1', null, 'Risk entry'), failure(err));
    return;
  }
  if (current() !== nav) return;
  page(view, 'risk', h('p', null, h('a', { href: '#/risks' }, '← Risk register')),
    h('h1', null, entry.title),
    props([
      ['Status', 'status', badge(entry.status)],
      ['Severity', 'severity', badge(severityOf(entry))],
      ['Likelihood × impact', 'score', `${entry.likelihood} × ${entry.impact} = ${entry.risk_score}`],
      ['Category', 'category', entry.category],
      ['Description', 'description', entry.description || '—'],
      ['Mitigation plan', 'mitigation_plan', entry.mitigation_plan || '—'],
      ['Models', 'model_ids', (entry.model_ids || []).join(', ') || '—'],
      ['Source', 'source', entry.source_type ? `${entry.source_type} ${entry.source_id || ''}` : 'entered by hand'],
      ['Created', 'created_at', when(entry.created_at)],
    ]),
    h('h2', null, 'History'), table('risk-history', [
      { title: 'When', cell: (e) => when(e.created_at) },
      { title: 'Action', key: 'event_action', cell: (e) => e.event_action },
      { title: 'By', cell: (e) => e.username || e.user_id || 'system' },
      { title: 'What', key: 'description', cell: (e) => e.description },
    ], history.events));
}
