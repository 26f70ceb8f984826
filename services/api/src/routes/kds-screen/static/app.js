// The kitchen screen (issue 14): plain JavaScript, no framework. Signs in with a KDS device token
// (from the address fragment `#token=...&key=...`, from this browser's storage, or by activating the
// device with its activation code), shows its station's open orders as tickets, follows the kitchen
// events on the real-time channel (catching up from its cursor after a reconnect) and lets a cook tap
// Start, Ready and Complete.
'use strict';
(function () {
  var STORE = 'kds-screen-credentials';
  var creds = null;
  var stationId = null;
  var orders = new Map(); // id -> order view
  var lastSeqOf = new Map(); // id -> seq of the last event applied
  var cursor = null; // highest kitchen event number seen with every one below it
  var early = new Set(); // numbers seen above the cursor (events may arrive out of order)
  var sortMode = 'priority_first'; // the device's `sort` setting, as GET /kds/orders orders
  var loading = null; // the GET /kds/orders in flight: {changed: id -> order applied by an event meanwhile (null: dropped)}
  var socket = null;
  var retryMs = 500;
  var $ = function (id) { return document.getElementById(id); };

  function readCredentials() {
    var h = new URLSearchParams(location.hash.replace(/^#/, ''));
    if (h.get('token') && h.get('key')) {
      var c = { token: h.get('token'), key: h.get('key') };
      localStorage.setItem(STORE, JSON.stringify(c));
      history.replaceState(null, '', location.pathname + location.search);
      return c;
    }
    try { return JSON.parse(localStorage.getItem(STORE) || 'null'); } catch (e) { return null; }
  }

  function say(text) { $('message').textContent = text || ''; }

  function api(method, path, body) {
    var headers = { authorization: 'Bearer ' + creds.token, 'x-client-api-key': creds.key };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch('/api' + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) }).then(function (r) {
      return r.text().then(function (t) {
        var data = null;
        try { data = t ? JSON.parse(t) : null; } catch (e) { data = null; }
        if (r.status === 401) { signOut('Signed out: ' + ((data && data.message) || 'invalid token')); throw new Error('unauthenticated'); }
        if (r.status === 402) { say('This display has no active subscription.'); throw new Error('payment required'); }
        if (!r.ok) throw new Error((data && data.message) || ('HTTP ' + r.status));
        return data;
      });
    });
  }

  function signOut(why) {
    localStorage.removeItem(STORE);
    creds = null;
    if (socket) { socket.onclose = null; socket.close(); socket = null; }
    orders.clear();
    render();
    showLogin(why);
  }

  function showLogin(why) {
    $('login').hidden = false;
    $('signout').hidden = true;
    $('login-error').textContent = why || '';
  }

  function activate(ev) {
    ev.preventDefault();
    var key = $('login-key').value.trim();
    var code = $('login-code').value.trim();
    fetch('/api/device-auth/activate', { method: 'POST', headers: { 'content-type': 'application/json', 'x-client-api-key': key }, body: JSON.stringify({ activation_code: code }) })
      .then(function (r) { return r.json().then(function (b) { return { ok: r.ok, b: b }; }); })
      .then(function (res) {
        if (!res.ok) { $('login-error').textContent = res.b.message || 'Activation failed'; return; }
        creds = { token: res.b.token, key: key };
        localStorage.setItem(STORE, JSON.stringify(creds));
        start();
      })
      .catch(function () { $('login-error').textContent = 'The server cannot be reached.'; });
  }

  // Event numbers: apply each once; the cursor advances over numbers seen without a gap.
  function note(seq) {
    if (cursor !== null && seq <= cursor) return false;
    if (early.has(seq)) return false;
    early.add(seq);
    while (cursor !== null && early.has(cursor + 1)) { early.delete(cursor + 1); cursor++; }
    return true;
  }

  // A ticket's new state (from an event with its number, or an action's answer). A `removed` event
  // carries only the order's id (the ticket no longer exists): the order is dropped.
  function apply(order, seq, removed) {
    if (!removed && order.station_id !== stationId) return;
    if (seq !== undefined) {
      var last = lastSeqOf.get(order.id);
      if (last !== undefined && last > seq) return; // an older change arriving late
      lastSeqOf.set(order.id, seq);
      // A snapshot requested before this event must not undo it (see loadOrders).
      if (loading) loading.changed.set(order.id, removed ? null : order);
    }
    if (removed || order.status === 'Complete') orders.delete(order.id);
    else orders.set(order.id, order);
    render();
  }

  // The station's open orders. Events applied while the request is in flight are newer than (or as new
  // as) the snapshot's state of their ticket, so they are applied again over it; a later load
  // supersedes an earlier one still in flight.
  function loadOrders() {
    var mine = { changed: new Map() };
    loading = mine;
    return api('GET', '/kds/orders').then(function (r) {
      if (loading !== mine) return;
      loading = null;
      orders.clear();
      r.data.forEach(function (o) { orders.set(o.id, o); });
      mine.changed.forEach(function (o, id) {
        if (o === null || o.status === 'Complete') orders.delete(id);
        else orders.set(id, o);
      });
      render();
    }, function (x) {
      if (loading === mine) loading = null;
      throw x;
    });
  }

  function connect() {
    var proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    var url = proto + '//' + location.host + '/api/realtime?token=' + encodeURIComponent(creds.token) + '&api_key=' + encodeURIComponent(creds.key);
    var ws = new WebSocket(url);
    socket = ws;
    ws.onmessage = function (m) {
      var e;
      try { e = JSON.parse(m.data); } catch (x) { return; }
      if (e.type === 'ready') {
        ws.send(JSON.stringify(cursor === null ? { action: 'subscribe', channel: 'kitchen' } : { action: 'subscribe', channel: 'kitchen', cursor: cursor }));
      } else if (e.type === 'subscribed' && e.channel === 'kitchen') {
        setLink(true);
        retryMs = 500;
        if (e.replayed === undefined) { cursor = e.cursor; early.clear(); loadOrders().catch(function (x) { say(x.message); }); }
      } else if (e.type === 'kitchen.resync') {
        setLink(true);
        cursor = e.cursor; early.clear(); lastSeqOf.clear();
        // The display may have been moved or bound to another station: its binding is read again first.
        loadSettings().then(loadOrders).catch(function (x) { say(x.message); });
      } else if (e.type === 'kitchen.ticket') {
        if (note(e.seq)) apply(e.order, e.seq, e.action === 'removed');
      } else if (e.type === 'error') {
        say(e.message);
      }
    };
    ws.onclose = function (c) {
      setLink(false);
      socket = null;
      if (c.code === 4401) return signOut('Signed out: the device token is no longer valid.');
      if (c.code === 4402) say('This display has no active subscription.');
      setTimeout(function () { if (creds) connect(); }, retryMs);
      retryMs = Math.min(retryMs * 2, 10000);
    };
  }

  function setLink(live) {
    var el = $('link');
    el.dataset.state = live ? 'live' : 'offline';
    el.textContent = live ? 'live' : 'offline';
  }

  // The answer carries no event number: when an event about the ticket came in while the request was
  // under way (this action's own, or another screen's later one), the events are newer and stay.
  function act(id, action) {
    var seen = lastSeqOf.get(id);
    api('PUT', '/kds/' + id + '/' + action).then(function (r) {
      if (lastSeqOf.get(id) === seen) apply(r.data);
      say('');
    }).catch(function (x) { say(x.message); });
  }

  function minutesSince(iso) { return Math.max(0, Math.floor((Date.now() - Date.parse(iso)) / 60000)); }

  function el(tag, attrs, children) {
    var n = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') n.textContent = attrs[k];
      else if (k === 'class') n.className = attrs[k];
      else if (k.slice(0, 5) === 'data-') n.setAttribute(k, attrs[k]);
      else n[k] = attrs[k];
    });
    (children || []).forEach(function (c) { if (c) n.appendChild(c); });
    return n;
  }

  // A scheduled order's due time on the screen's clock (the screen stands at its location): "12:30", or "Tue 12:30" on another day.
  function dueText(iso) {
    var d = new Date(iso);
    var time = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });
    return d.toDateString() === new Date().toDateString() ? time : d.toLocaleDateString([], { weekday: 'short', day: 'numeric', month: 'short' }) + ' ' + time;
  }

  function ticket(o) {
    var buttons = [];
    if (o.status === 'Queued') buttons.push(['in-progress', 'Start']);
    if (o.status === 'Queued' || o.status === 'In Progress') buttons.push(['ready', 'Ready']);
    buttons.push(['complete', 'Complete']);
    var flags = [o.due_at ? 'DUE ' + dueText(o.due_at) : '', o.held ? 'ON HOLD' : '', o.prioritized ? 'PRIORITY' : '', o.customer_arrived_at ? 'CUSTOMER HERE' : ''].filter(Boolean).join(' · ');
    return el('article', { class: 'ticket' + (o.prioritized ? ' prioritized' : '') + (o.held ? ' held' : ''), 'data-order-id': o.id, 'data-order-no': o.order_no, 'data-status': o.status }, [
      el('h2', {}, [el('span', { text: '#' + o.order_no }), el('span', { class: 'status', text: o.status + ' · ' + minutesSince(o.queued_at) + ' min' })]),
      flags ? el('div', { class: 'flags', text: flags }) : null,
      el('ul', {}, o.items.map(function (i) {
        var mods = (i.modifiers || []).map(function (m) { return m && typeof m === 'object' && m.name ? m.name : String(m); }).join(', ');
        return el('li', { class: i.status === 'Ready' ? 'done' : '' }, [el('span', { text: i.qty + ' × ' + i.name }), mods ? el('div', { class: 'mods', text: mods }) : null]);
      })),
      el('div', { class: 'actions' }, buttons.map(function (b) {
        return el('button', { type: 'button', text: b[1], 'data-action': b[0], onclick: function () { act(o.id, b[0]); } });
      })),
    ]);
  }

  function render() {
    // As GET /kds/orders orders: prioritised first only when the device's `sort` says so, then oldest first.
    var list = Array.from(orders.values()).sort(function (a, b) {
      if (sortMode === 'priority_first' && a.prioritized !== b.prioritized) return a.prioritized ? -1 : 1;
      return Date.parse(a.queued_at) - Date.parse(b.queued_at) || (a.id < b.id ? -1 : 1);
    });
    var box = $('tickets');
    box.replaceChildren.apply(box, list.map(ticket));
    var waiting = list.filter(function (o) { return o.status === 'Queued'; }).length;
    $('counts').textContent = list.length ? (list.length + ' open · ' + waiting + ' waiting') : 'no open orders';
  }

  // The display's station and settings, as the server has them now.
  function loadSettings() {
    return api('GET', '/kds/settings').then(function (s) {
      stationId = s.data.station ? s.data.station.id : null;
      sortMode = (s.data.settings && s.data.settings.sort) || 'priority_first';
      $('station').textContent = s.data.station ? s.data.station.name : 'No station bound';
      say(stationId ? '' : 'This display is not bound to a station yet.');
    });
  }

  function start() {
    $('login').hidden = true;
    $('signout').hidden = false;
    loadSettings().then(connect).catch(function (x) { say(x.message); });
  }

  document.addEventListener('DOMContentLoaded', function () {
    $('login').addEventListener('submit', activate);
    $('signout').addEventListener('click', function () { signOut(''); });
    setInterval(render, 30000); // ages on the tickets
    creds = readCredentials();
    if (creds) start();
    else showLogin('');
  });
})();
