// Exports: the list with status and progress (polled every 2 s while one
// is pending or in progress), a download button for a completed one, and
// a form that asks for a report from a template (POST /export/exports).

import { h, page, table, when, badge, failure, num } from '../dom.js';
import { get, post, q, download, seg } from '../api.js';
import { current } from '../router.js';

const FORMATS = ['pdf', 'html', 'excel', 'csv', 'json', 'markdown'];
const day = (ms) => new Date(ms).toISOString().slice(0, 10);

function list(exports, templates, message) {
  const names = Object.fromEntries(templates.map((t) => [t.id, t.name]));
  return table('exports', [
    { title: 'Created', cell: (e) => when(e.created_at) },
    { title: 'Template', cell: (e) => names[e.template_id] || e.template_id },
    { title: 'Format', key: 'format', cell: (e) => e.format },
    { title: 'Period', cell: (e) => `${e.start} – ${e.end}` },
    { title: 'Status', key: 'status', cell: (e) => badge(e.status) },
    { title: 'Progress', num: true, cell: (e) => e.progress + '%' },
    { title: 'Size (bytes)', num: true, key: 'size_bytes', cell: (e) => (e.status === 'completed' ? num(e.size_bytes) : '—') },
    { title: '', cell: (e) => (e.status !== 'completed' ? (e.error || '') : h('button', {
      class: 'act', type: 'button', 'data-action': 'download',
      onclick: async () => {
        try { message.textContent = 'Downloaded ' + await download(`/export/exports/${seg(e.export_id)}/download`); }
        catch (err) { message.textContent = err.message; }
      },
    }, 'Download')) },
  ], exports.map((e) => ({ ...e, id: e.export_id })));
}

function form(templates, models, onCreate) {
  const field = (label, control) => h('div', null, h('label', { for: control.id }, label), control);
  const template = h('select', { id: 'export-template', required: true }, templates.map((t) => h('option', { value: t.id }, t.name)));
  const model = h('select', { id: 'export-models', multiple: true, required: true, size: Math.min(4, Math.max(models.length, 1)) },
    models.map((m, i) => h('option', { value: m.id, selected: i === 0 }, `${m.name} ${m.version}`)));
  const format = h('select', { id: 'export-format' }, FORMATS.map((f) => h('option', { value: f }, f)));
  const start = h('input', { id: 'export-start', type: 'date', required: true, value: day(Date.now() - 29 * 86400000) });
  const end = h('input', { id: 'export-end', type: 'date', required: true, value: day(Date.now()) });
  const error = h('p', { class: 'error', role: 'alert', id: 'export-error' });
  const submit = async (e) => {
    e.preventDefault();
    error.textContent = '';
    try {
      await post('/export/exports', { template_id: template.value, model_ids: [...model.selectedOptions].map((o) => o.value),
        format: format.value, start: start.value, end: end.value });
      onCreate();
    } catch (err) {
      error.textContent = err.message + (err.details ? ' ' + JSON.stringify(err.details) : '');
    }
  };
  return [h('form', { class: 'inline', id: 'export-form', onsubmit: submit },
    field('Template', template), field('Models', model), field('Format', format), field('From', start), field('To', end),
    h('div', null, h('button', { type: 'submit', id: 'export-create' }, 'Create export'))), error];
}

export async function render(view, _params, nav) {
  let templates, models;
  try {
    [templates, models] = await Promise.all([get('/export/templates' + q({ page_size: 100 })), get('/models' + q({ limit: 100 }))]);
  } catch (err) {
    if (current() === nav) page(view, 'exports', h('h1', null, 'Exports'), failure(err));
    return undefined;
  }
  const message = h('p', { role: 'status', class: 'muted', id: 'exports-message' });
  const holder = h('div', null);
  let timer = null;
  const refresh = async () => {
    clearTimeout(timer);
    try {
      const r = await get('/export/exports' + q({ page_size: 50 }));
      holder.replaceChildren(list(r.exports, templates.templates, message));
      if (r.exports.some((e) => e.status === 'pending' || e.status === 'in_progress')) timer = setTimeout(refresh, 2000);
    } catch (err) {
      holder.replaceChildren(failure(err));
    }
  };
  await refresh();
  if (current() !== nav) { clearTimeout(timer); return undefined; }
  page(view, 'exports', h('h1', null, 'Exports'),
    h('h2', null, 'Create from a template'),
    models.length ? form(templates.templates, models, refresh) : h('p', { class: 'empty' }, 'no data: register a model first'),
    h('h2', null, 'Exports'), message, holder);
  return () => clearTimeout(timer);
}
