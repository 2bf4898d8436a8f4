// dom.js: building the page from elements and text nodes, never from markup
// strings: every value from the API goes into the DOM as a text node, so
// nothing it holds can run.

// h makes an element: attrs are set as attributes (or, for on*, as event
// listeners); children are elements or strings (text nodes), nulls skipped.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

// append adds children (elements, strings, arrays of them) to el.
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// empty is the "no data" mark of a list or figure the API has nothing for.
export function empty(what) {
  return h('p', { class: 'empty', 'data-empty': what || '' }, 'no data');
}

// num formats a number for display; null (the API's "none") is "no data".
export function num(v, digits) {
  if (v === null || v === undefined || Number.isNaN(v)) return 'no data';
  if (digits === undefined) return Number.isInteger(v) ? v.toLocaleString('en-US') : v.toLocaleString('en-US', { maximumFractionDigits: 2 });
  return v.toFixed(digits);
}

// when formats an RFC 3339 time as UTC "YYYY-MM-DD HH:MM".
export function when(ts) {
  if (!ts) return '—';
  return String(ts).replace('T', ' ').slice(0, 16) + ' UTC';
}

// badge is a status or severity label.
export function badge(value) {
  return h('span', { class: 'status ' + String(value || '') }, value === null || value === undefined ? '—' : String(value));
}

// figure is one labelled figure; name is its data-figure key for tests.
export function figure(label, name, value) {
  return h('div', { class: 'figure' }, h('span', null, label), h('span', { class: 'value', 'data-figure': name }, value));
}

// table renders rows with columns [{title, cell(row) -> node|string, num}]
// or "no data" when rows is empty.
export function table(name, columns, rows) {
  if (!rows || rows.length === 0) return empty(name);
  return h('table', { 'data-table': name },
    h('thead', null, h('tr', null, columns.map((c) => h('th', null, c.title)))),
    h('tbody', null, rows.map((r) => h('tr', { 'data-id': r.id || r.export_id || r.prediction_id || null },
      columns.map((c) => h('td', { class: c.num ? 'num' : null, 'data-col': c.key || null }, c.cell(r)))))));
}

// page replaces the view with a page's content and marks it loaded, which
// the browser tests wait for.
export function page(view, name, ...children) {
  view.replaceChildren(...children.flat().filter(Boolean));
  view.setAttribute('data-page', name);
  view.setAttribute('data-ready', '1');
}

// failure shows an error where a page or a section could not load.
export function failure(err) {
  return h('p', { class: 'error', role: 'alert' }, 'Could not load: ' + (err && err.message ? err.message : String(err)));
}
