// router.js: hash routing (#/models/<id>). A page is a function
// (view, params) that renders into the view and may return a cleanup
// function, called when the user leaves it.

import { token } from './api.js';

const routes = [];
let cleanup = null;
let seq = 0;

// route registers a page for a pattern such as '/models/:id'.
export function route(pattern, render, { open = false } = {}) {
  const names = [];
  const re = new RegExp('^' + pattern.replace(/:(\w+)/g, (_, n) => { names.push(n); return '([^/]+)'; }) + '$');
  routes.push({ re, names, render, open });
}

// current is the number of the current navigation; a page that loads
// asynchronously checks it before drawing, so a late answer never draws
// over the page the user went to meanwhile.
export function current() { return seq; }

async function go(view, onNavigate) {
  const path = location.hash.replace(/^#/, '') || '/overview';
  const match = routes.map((r) => [r, path.match(r.re)]).find(([, m]) => m);
  if (!match) { location.hash = '#/overview'; return; }
  const [r, m] = match;
  if (!r.open && !token()) { location.hash = '#/login'; return; }
  if (cleanup) { try { cleanup(); } catch (_) { /* ignore */ } cleanup = null; }
  seq++;
  const params = {};
  r.names.forEach((n, i) => { params[n] = decodeURIComponent(m[i + 1]); });
  view.removeAttribute('data-ready');
  view.removeAttribute('data-page');
  onNavigate(path);
  const mine = seq;
  const c = await r.render(view, params, mine);
  if (typeof c === 'function') {
    if (mine === seq) cleanup = c;
    else c();
  }
}

// start renders the page of the current hash and every later one.
export function start(view, onNavigate) {
  window.addEventListener('hashchange', () => go(view, onNavigate));
  go(view, onNavigate);
}
