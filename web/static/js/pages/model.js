// A model's page: its figures, recent predictions, drift reports, bias
// audits, explanations, and trust score with its history. Each section
// loads on its own: one that fails says so and the others still show.

import { h, page, table, num, when, badge, figure, failure } from '../dom.js';
import { get, q, seg } from '../api.js';
import { line } from '../chart.js';
import { current } from '../router.js';

function section(title, name, result, draw) {
  return h('section', { 'data-section': name }, h('h2', null, title),
    result.status === 'fulfilled' ? draw(result.value) : failure(result.reason));
}

function short(v) {
  const s = JSON.stringify(v);
  return s && s.length > 60 ? s.slice(0, 57) + '…' : (s || '');
}

function trust(t, history) {
  const points = history.data_points || [];
  return [
    h('div', { class: 'cards' }, h('div', { class: 'card' },
      figure('Trust score', 'trust.score', num(t.trust_score)),
      figure('Fairness', 'trust.fairness', num(t.fairness_component)),
      figure('Drift', 'trust.drift', num(t.drift_component)),
      figure('Explainability', 'trust.explainability', num(t.explainability_component)),
      figure('Trend', 'trust.trend', history.trend_direction || 'no data'))),
    h('h3', null, 'History (90 days)'),
    line(points.map((p) => p.trust_score), { width: 480, height: 60, label: 'trust score per snapshot', name: 'trust-history' }),
    table('trust-history', [
      { title: 'Snapshot', cell: (p) => when(p.snapshot_at) },
      { title: 'Score', num: true, key: 'trust_score', cell: (p) => num(p.trust_score) },
      { title: 'Cause', cell: (p) => p.cause_type },
    ], points.slice().reverse()),
  ];
}

export async function render(view, { id }, nav) {
  const m = seg(id);
  let model;
  try {
    model = await get('/models/' + m);
  } catch (err) {
    if (current() === nav) page(view, 'model', h('h1', null, 'Model'), failure(err));
    return;
  }
  const [stats, recent, drift, audits, explanations, score, history] = await Promise.allSettled([
    get(`/predictions/models/${m}/stats`),
    get(`/predictions/models/${m}/recent` + q({ limit: 20 })),
    get('/drift/reports' + q({ model_id: id, page_size: 20 })),
    get('/bias/audits' + q({ model_id: id, page_size: 20 })),
    get('/explanations' + q({ model_id: id, limit: 20 })),
    get(`/trust-score/models/${m}`),
    get(`/trust-score/models/${m}/history` + q({ days: 90 })),
  ]);
  if (current() !== nav) return;
  page(view, 'model',
    h('h1', null, `${model.name} `, h('span', { class: 'muted' }, 'version ' + model.version), ' ', badge(model.status)),
    section('Predictions (24 h)', 'stats', stats, (s) => h('div', { class: 'cards' }, h('div', { class: 'card' },
      figure('Predictions', 'stats.total_predictions', num(s.total_predictions)),
      figure('Mean latency (ms)', 'stats.avg_latency_ms', num(s.avg_latency_ms)),
      figure('p95 latency (ms)', 'stats.p95_latency_ms', num(s.p95_latency_ms)),
      figure('Per hour', 'stats.predictions_per_hour', num(s.predictions_per_hour))))),
    section('Recent predictions', 'predictions', recent, (rows) => table('predictions', [
      { title: 'Time', cell: (p) => when(p.timestamp) },
      { title: 'Prediction', key: 'prediction_id', cell: (p) => p.prediction_id },
      { title: 'Output', cell: (p) => short(p.output_data) },
      { title: 'Latency (ms)', num: true, cell: (p) => num(p.latency_ms) },
    ], rows)),
    section('Drift reports', 'drift', drift, (r) => table('drift-reports', [
      { title: 'Created', cell: (d) => when(d.created_at) },
      { title: 'Type', cell: (d) => d.drift_type },
      { title: 'Score', num: true, key: 'overall_drift_score', cell: (d) => num(d.overall_drift_score) },
      { title: 'Drift', cell: (d) => (d.drift_detected ? 'detected' : 'none') },
      { title: 'Severity', key: 'severity', cell: (d) => badge(d.severity) },
    ], r.reports)),
    section('Bias audits', 'bias', audits, (r) => table('bias-audits', [
      { title: 'Created', cell: (a) => when(a.created_at) },
      { title: 'Status', key: 'status', cell: (a) => badge(a.status) },
      { title: 'Fairness score', num: true, key: 'overall_fairness_score', cell: (a) => num(a.overall_fairness_score) },
      { title: 'Severity', cell: (a) => badge(a.severity) },
      { title: 'Attributes', cell: (a) => (a.protected_attributes || []).join(', ') },
    ], r.audits)),
    section('Explanations', 'explanations', explanations, (r) => table('explanations', [
      { title: 'Created', cell: (e) => when(e.created_at) },
      { title: 'Method', cell: (e) => e.method },
      { title: 'Status', key: 'status', cell: (e) => badge(e.status) },
      { title: 'Top features', cell: (e) => ((e.result && e.result.top_features) || e.top_features || []).slice(0, 3).map((f) => (typeof f === 'string' ? f : f.feature || f.name || short(f))).join(', ') },
      { title: 'Predicted', num: true, cell: (e) => num(e.result ? e.result.predicted_value : e.predicted_value) },
    ], r.explanations)),
    h('section', { 'data-section': 'trust' }, h('h2', null, 'Trust score'),
      score.status !== 'fulfilled' ? failure(score.reason)
        : history.status !== 'fulfilled' ? failure(history.reason) : trust(score.value, history.value)),
  );
}
