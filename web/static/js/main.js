// main.js: the dashboard's entry point: the pages by route, the bar.

import { route, start } from './router.js';
import { endSession, token, user } from './api.js';
import * as login from './pages/login.js';
import * as overview from './pages/overview.js';
import * as models from './pages/models.js';
import * as model from './pages/model.js';
import * as alerts from './pages/alerts.js';
import * as risks from './pages/risks.js';
import * as risk from './pages/risk.js';
import * as exports from './pages/exports.js';

route('/login', login.render, { open: true });
route('/overview', overview.render);
route('/models', models.render);
route('/models/page/:n', models.render);
route('/models/:id', model.render);
route('/alerts', alerts.render);
route('/risks', risks.render);
route('/risks/:id', risk.render);
route('/exports', exports.render);

const bar = document.getElementById('bar');
document.getElementById('logout').addEventListener('click', () => endSession());

start(document.getElementById('view'), (path) => {
  bar.hidden = path === '/login' || !token();
  document.getElementById('who').textContent = user();
  for (const a of bar.querySelectorAll('nav a')) {
    const target = a.getAttribute('href').slice(1);
    a.classList.toggle('active', path === target || path.startsWith(target + '/'));
  }
});
