// The login page: POST /auth/login; the token goes to sessionStorage.

import { h, page } from '../dom.js';
import { login, notice } from '../api.js';

export function render(view) {
  const error = h('p', { class: 'error', role: 'alert', id: 'login-error' });
  const username = h('input', { id: 'username', name: 'username', autocomplete: 'username', required: true });
  const password = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const submit = async (e) => {
    e.preventDefault();
    error.textContent = '';
    try {
      await login(username.value, password.value);
      location.hash = '#/overview';
    } catch (err) {
      error.textContent = err.message;
    }
  };
  page(view, 'login', h('form', { class: 'login', onsubmit: submit },
    h('h1', null, 'Log in to Vigil'),
    h('p', { class: 'muted', id: 'login-notice', role: 'status' }, notice()),
    h('label', { for: 'username' }, 'Username'), username,
    h('label', { for: 'password' }, 'Password'), password,
    h('button', { type: 'submit', id: 'login-submit' }, 'Log in'),
    error));
}
