// live.js: the dashboard's live channel, GET /api/v1/dashboard/ws?token=.
// It pushes the statistics at once and then every interval. A dropped
// channel is opened again after 1 s, doubling up to 30 s; close code 4001
// (token expired) or 4003 (token revoked or role changed) ends the
// session and goes to the login page.

import { token, endSession, get, ENDED } from './api.js';

// connect opens the channel; onStats gets each message's statistics and
// onState 'connecting', 'live' or 'reconnecting'. It returns a function
// that closes it. A channel refused before it opened (the token is checked
// before the upgrade, which a browser reports only as code 1006) is told
// from a network failure by asking /auth/me: a 401 there ends the session.
export function connect(onStats, onState) {
  let ws = null, timer = null, delay = 1000, closed = false;
  const open = () => {
    const t = token();
    if (!t || closed) return;
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    ws = new WebSocket(`${scheme}//${location.host}/api/v1/dashboard/ws?token=${encodeURIComponent(t)}`);
    ws.addEventListener('message', (e) => {
      let m;
      try { m = JSON.parse(e.data); } catch (_) { return; }
      if (m.type === 'statistics' && m.statistics) {
        delay = 1000;
        onState('live');
        onStats(m.statistics, m);
      }
    });
    let opened = false;
    ws.addEventListener('open', () => { opened = true; });
    ws.addEventListener('close', (e) => {
      ws = null;
      document.body.dataset.liveClosed = String(e.code);
      if (closed) return;
      if (e.code === 4001 || e.code === 4003) { endSession(ENDED); return; }
      if (!opened) get('/auth/me').catch(() => {});
      onState('reconnecting');
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 30000);
    });
  };
  onState('connecting');
  open();
  return () => {
    closed = true;
    clearTimeout(timer);
    if (ws) ws.close(1000);
  };
}
