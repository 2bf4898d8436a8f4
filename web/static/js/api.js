// api.js: the REST API under /api/v1 with the logged-in user's token,
// kept in sessionStorage (gone when the tab closes). A 401 ends the
// session and goes back to the login page.

const KEY = 'vigil.token';
const USER = 'vigil.user';
const NOTICE = 'vigil.notice';

// notice is (once) why the last session ended.
export function notice() {
  const n = sessionStorage.getItem(NOTICE) || '';
  sessionStorage.removeItem(NOTICE);
  return n;
}

const ENDED = 'Your session has ended: log in again.';

export function token() { return sessionStorage.getItem(KEY); }
export function user() { return sessionStorage.getItem(USER) || ''; }

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

// endSession forgets the token and shows the login page, with why.
export function endSession(why) {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(USER);
  sessionStorage.setItem(NOTICE, typeof why === 'string' ? why : 'You have logged out.');
  if (location.hash !== '#/login') location.hash = '#/login';
}

async function fail(res) {
  let code = 'HTTP_' + res.status, message = 'request failed (' + res.status + ')', details;
  try {
    const b = await res.json();
    if (b && b.error) ({ code, message, details } = b.error);
  } catch (_) { /* not the envelope */ }
  return new ApiError(res.status, code, message, details);
}

// call sends one request; body (if any) as JSON. It resolves to the
// parsed answer (null for 204), or rejects with an ApiError.
export async function call(method, path, body) {
  const headers = { Accept: 'application/json' };
  const t = token();
  if (t) headers.Authorization = 'Bearer ' + t;
  const init = { method, headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch('/api/v1' + path, init);
  if (res.status === 401 && path !== '/auth/login') {
    endSession(ENDED);
  }
  if (!res.ok) throw await fail(res);
  return res.status === 204 ? null : res.json();
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body);

// q builds a query string from an object, leaving out null values.
export function q(params) {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) s.set(k, String(v));
  const out = s.toString();
  return out ? '?' + out : '';
}

// id escapes one path segment.
export const seg = encodeURIComponent;

export { ENDED };

export async function login(username, password) {
  const r = await call('POST', '/auth/login', { username, password });
  sessionStorage.setItem(KEY, r.access_token);
  sessionStorage.setItem(USER, r.user ? r.user.username : username);
  return r;
}

// download fetches a file with the token and hands it to the browser
// under the name the server gives it.
export async function download(path) {
  const res = await fetch('/api/v1' + path, { headers: { Authorization: 'Bearer ' + token() } });
  if (res.status === 401) endSession(ENDED);
  if (!res.ok) throw await fail(res);
  const name = ((res.headers.get('Content-Disposition') || '').match(/filename="?([^";]+)"?/) || [])[1] || 'export';
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  return name;
}
