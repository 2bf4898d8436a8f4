// chart.js: small inline SVG charts drawn from the API's series. A point
// whose value is null (the API's "none") is a gap, never a zero; a series
// with no value at all draws "no data" instead of a chart.

const NS = 'http://www.w3.org/2000/svg';

function el(tag, attrs) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function frame(width, height, label, name) {
  const svg = el('svg', { class: 'chart', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'data-chart': name || '' });
  const title = el('title', {});
  title.textContent = label;
  svg.append(title);
  return svg;
}

function noData(name) {
  const p = document.createElement('span');
  p.className = 'empty';
  p.setAttribute('data-chart', name || '');
  p.textContent = 'no data';
  return p;
}

function scale(values, height, pad) {
  const present = values.filter((v) => v !== null && v !== undefined);
  const max = Math.max(...present), min = Math.min(0, ...present);
  const span = max - min || 1;
  return (v) => pad + (height - 2 * pad) * (1 - (v - min) / span);
}

// line draws values (oldest first) as a line with a dot per point; null
// values break the line. label is the chart's accessible title.
export function line(values, { width = 160, height = 36, label = '', name = '' } = {}) {
  if (!values.some((v) => v !== null && v !== undefined)) return noData(name);
  const svg = frame(width, height, label, name);
  const y = scale(values, height, 3);
  const step = values.length > 1 ? (width - 6) / (values.length - 1) : 0;
  let run = [];
  const flush = () => {
    if (run.length > 1) svg.append(el('polyline', { points: run.join(' ') }));
    run = [];
  };
  values.forEach((v, i) => {
    if (v === null || v === undefined) { flush(); return; }
    const x = 3 + i * step, yy = y(v);
    run.push(`${x.toFixed(1)},${yy.toFixed(1)}`);
    svg.append(el('circle', { cx: x.toFixed(1), cy: yy.toFixed(1), r: 1.8 }));
  });
  flush();
  return svg;
}

// bars draws counts (oldest first) as bars from zero.
export function bars(values, { width = 160, height = 36, label = '', name = '' } = {}) {
  if (!values.some((v) => v)) return noData(name);
  const svg = frame(width, height, label, name);
  const max = Math.max(...values);
  const w = width / values.length;
  values.forEach((v, i) => {
    const bh = max ? (height - 2) * (v / max) : 0;
    svg.append(el('rect', { class: 'bar', x: (i * w + 1).toFixed(1), y: (height - bh).toFixed(1), width: Math.max(w - 2, 1).toFixed(1), height: bh.toFixed(1) }));
  });
  return svg;
}
