// A risk entry with its audit trail (GET /risk-register/{id}/history).

import { h, page, table, when, badge, failure } from '../dom.js';
import { get, q, seg } from '../api.js';
import { current } from '../router.js';
import { severityOf } from './risks.js';

function props(pairs) {
  return h('dl', { class: 'props' }, pairs.map(([k, name, v]) => [h('dt', null, k), h('dd', { 'data-field': name }, v)]));
}

function modelLinks(ids, models) {
  if (ids.length === 0) return '—';
  const names = Object.fromEntries(models.map((m) => [m.id, `${m.name} ${m.version}`]));
  return ids.map((id, i) => [i ? ', ' : '', h('a', { href: '#/models/' + encodeURIComponent(id) }, names[id] || id)]);
}

export async function render(view, { id }, nav) {
  let entry, history, models;
  try {
    [entry, history, models] = await Promise.all([get('/risk-register/' + seg(id)), get(`/risk-register/${seg(id)}/history`),
      get('/models' + q({ limit: 1000 }))]);
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
      ['Models', 'model_ids', modelLinks(entry.model_ids || [], models)],
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
