// Queue dashboard: reads /api/back-office/async-monitoring (and /summary) with a global admin's token,
// kept in sessionStorage only, and refreshes every 5 seconds. Text is inserted as text, never as HTML.
const $ = (id) => document.getElementById(id);
let timer = null;

function cell(row, value, cls) {
  const td = document.createElement('td');
  td.textContent = String(value);
  if (cls) td.className = cls;
  row.appendChild(td);
}

async function get(path, token) {
  const res = await fetch(path, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  if (!res.ok) throw new Error(res.status === 403 ? 'This account is not a global admin.' : `HTTP ${res.status}`);
  return (await res.json()).data;
}

async function refresh() {
  const token = sessionStorage.getItem('queue-dashboard-token');
  if (!token) return;
  try {
    const [queues, summary] = await Promise.all([get('/api/back-office/async-monitoring', token), get('/api/back-office/async-monitoring/summary', token)]);
    const body = $('queues').tBodies[0];
    body.replaceChildren();
    for (const q of queues) {
      const tr = document.createElement('tr');
      cell(tr, q.queue);
      for (const k of ['waiting', 'active', 'delayed', 'failed', 'succeeded']) cell(tr, q[k] ?? 0, k === 'failed' && q[k] > 0 ? 'failed' : '');
      body.appendChild(tr);
    }
    const tb = $('tenants').tBodies[0];
    tb.replaceChildren();
    for (const t of summary.by_tenant) {
      const tr = document.createElement('tr');
      cell(tr, t.tenant);
      cell(tr, t.pending ?? 0);
      cell(tr, t.failed ?? 0, t.failed > 0 ? 'failed' : '');
      tb.appendChild(tr);
    }
    for (const id of ['queues', 'tenants', 'tenants-title']) $(id).hidden = false;
    $('status').textContent = `Updated ${new Date().toLocaleTimeString()}`;
  } catch (e) {
    $('status').textContent = e.message;
  }
}

$('signin').addEventListener('submit', (ev) => {
  ev.preventDefault();
  sessionStorage.setItem('queue-dashboard-token', $('token').value.trim());
  $('token').value = '';
  refresh();
  clearInterval(timer);
  timer = setInterval(refresh, 5000);
});
if (sessionStorage.getItem('queue-dashboard-token')) {
  refresh();
  timer = setInterval(refresh, 5000);
}
