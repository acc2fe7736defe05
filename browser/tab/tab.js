// A real Client Tools client (SPEC Part A) running in a browser tab: it opens the session's
// event stream with EventSource (credential as access_token, AUTH-5), registers with a TTL
// (section 3), pings below the TTL (LIFE-2), PUTs its whole tool list on every screen change
// (TOOLS-1), acks and answers the calls dispatched to it (CALL-3, CALL-4) and DELETEs itself
// only when the user presses "Leave" (LIFE-1). Closing the tab sends nothing: the server
// finds out when the TTL runs out (LIFE-5). State for a driver is on window.toolwire.
'use strict';
(() => {
  // Parameters: the query string, then the hash (which wins, and keeps the token out of
  // every request line).
  const params = new URLSearchParams(location.search);
  for (const [k, v] of new URLSearchParams(location.hash.slice(1))) params.set(k, v);
  const sid = params.get('session') || '';
  const token = params.get('token') || '';
  const base = (params.get('base') || location.origin).replace(/\/+$/, '');
  const requestedName = params.get('name') || 'tab';
  const ttlSeconds = Math.max(1, Math.min(86400, parseInt(params.get('ttl') || '30', 10) || 30));
  // Pings at a third of the TTL, so that one lost ping never lets the client expire.
  const pingMs = Math.max(200, Math.floor((ttlSeconds * 1000) / 3));

  const tw = {
    session_id: sid,
    base,
    requested_name: requestedName,
    ttl_seconds: ttlSeconds,
    ping_ms: pingMs,
    client_id: null,
    name: null,
    registrations: 0,
    stream_open: false,
    screen: 'table',
    tools: [],
    tools_synced_screen: null, // the screen whose tool list the server has (201 or PUT 200)
    pings: 0,
    calls_acked: 0,
    calls_answered: 0,
    calls: [], // {call_id, tool, arguments, is_error, answer_status}
    left: false,
    leaving: false, // true while the DELETE is under way
    last_error: null,
    log: [],
  };
  window.toolwire = tw;

  const logBox = document.getElementById('log');
  function log(line) {
    const stamp = new Date().toISOString().slice(11, 23);
    tw.log.push(`${stamp} ${line}`);
    if (tw.log.length > 200) tw.log.splice(0, tw.log.length - 200);
    logBox.textContent = tw.log.slice(-12).join('\n');
  }
  function fail(what) {
    tw.last_error = what;
    log(`error: ${what}`);
    showStatus();
  }
  function showStatus() {
    const who = tw.left ? 'left' : tw.client_id ? `${tw.name} (${tw.client_id})` : 'not registered';
    document.getElementById('status').textContent =
      `${who} · ${tw.screen} · ${tw.calls_answered} call(s) answered` + (tw.last_error ? ` · ${tw.last_error}` : '');
  }

  // --- the app's tools ---------------------------------------------------------------
  const TOOLS = {
    highlight_row: {
      name: 'highlight_row',
      description: 'Highlight one row of the orders table (rows are numbered from 1); the others lose their highlight.',
      parameters: { type: 'object', properties: { row: { type: 'integer', minimum: 1 } }, required: ['row'] },
      run(args) {
        const rows = [...document.querySelectorAll('#orders tbody tr')];
        const n = Number(args.row);
        if (!Number.isInteger(n) || n < 1 || n > rows.length) {
          throw toolError(`row must be an integer from 1 to ${rows.length}`, 'invalid_arguments');
        }
        rows.forEach((tr) => tr.classList.remove('highlighted'));
        const tr = rows[n - 1];
        tr.classList.add('highlighted');
        const cells = [...tr.cells].map((c) => c.textContent);
        return { highlighted: n, order: cells[1], customer: cells[2], total: cells[3] };
      },
    },
    read_form: {
      name: 'read_form',
      description: 'Read the fields of the checkout form as the user filled them in.',
      parameters: { type: 'object', properties: { form: { type: 'string' } } },
      run() {
        const form = document.getElementById('checkout');
        const fields = {};
        for (const el of form.elements) if (el.name) fields[el.name] = el.value;
        return { form: form.name, fields };
      },
    },
    pick_date: {
      name: 'pick_date',
      description: 'Set the date picker in the header to a date (YYYY-MM-DD).',
      parameters: { type: 'object', properties: { date: { type: 'string', format: 'date' } }, required: ['date'] },
      run(args) {
        const input = document.getElementById('date');
        const d = String(args.date || '');
        if (!/^\d{4}-\d{2}-\d{2}$/.test(d)) throw toolError('date must be YYYY-MM-DD', 'invalid_arguments');
        input.value = d;
        if (input.value !== d) throw toolError(`${d} is not a date`, 'invalid_arguments');
        input.dispatchEvent(new Event('change', { bubbles: true }));
        return { date: input.value };
      },
    },
  };
  // What each screen offers: navigation changes the tool list.
  const SCREEN_TOOLS = { table: ['highlight_row', 'pick_date'], form: ['read_form', 'pick_date'] };
  function toolError(message, reason) {
    const e = new Error(message);
    e.reason = reason;
    return e;
  }
  function declaredTools(screen) {
    return SCREEN_TOOLS[screen].map((n) => {
      const { name, description, parameters } = TOOLS[n];
      return { name, description, parameters };
    });
  }

  // --- HTTP -------------------------------------------------------------------------
  async function api(method, path, body) {
    const init = { method, headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await fetch(`${base}/v1/sessions/${encodeURIComponent(sid)}${path}`, init);
    const text = await res.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (_) { /* not JSON: kept as text */ }
    return { status: res.status, json, text };
  }
  const clientPath = (suffix = '') => `/clients/${encodeURIComponent(tw.client_id)}${suffix}`;

  let registering = null;
  function register() {
    if (tw.left) return Promise.resolve();
    if (!registering) {
      registering = (async () => {
        const screen = tw.screen;
        const body = { name: requestedName, lifetime: { type: 'ttl', data: { seconds: ttlSeconds } }, tools: declaredTools(screen) };
        try {
          const r = await api('POST', '/clients', body);
          if (r.status !== 201) return fail(`register: ${r.status} ${r.text}`);
          tw.client_id = r.json.client_id;
          tw.name = r.json.name;
          tw.registrations += 1;
          tw.tools = SCREEN_TOOLS[screen].slice();
          tw.tools_synced_screen = screen;
          log(`registered as ${tw.name} (${tw.client_id}), ttl ${ttlSeconds}s, tools ${tw.tools.join(',')}`);
          showStatus();
          if (tw.screen !== screen) await putTools();
        } catch (e) {
          fail(`register: ${e.message}`);
        } finally {
          registering = null;
        }
      })();
    }
    return registering;
  }
  // The client is gone on the server (expired while the tab slept, was offline or frozen):
  // a new registration, a new client id.
  // `id`: the client the answer was about. A 404 to a ping sent before the page registered
  // anew (a frozen tab resumed: its stream said client_unregistered while that ping was on
  // its way) is about the old client: registering again then would orphan the new one.
  function gone(what, id) {
    if (id !== tw.client_id) return Promise.resolve();
    log(`${what}: client ${tw.client_id} is gone, registering again`);
    tw.client_id = null;
    tw.name = null;
    tw.tools_synced_screen = null;
    return register();
  }

  async function ping() {
    if (tw.left || !tw.client_id || registering) return;
    const id = tw.client_id;
    try {
      const r = await api('POST', clientPath('/ping'), {});
      if (r.status === 200) tw.pings += 1;
      else if (r.status === 404) await gone('ping 404', id);
      else fail(`ping: ${r.status} ${r.text}`);
    } catch (e) {
      fail(`ping: ${e.message}`);
    }
  }

  async function putTools() {
    if (tw.left || !tw.client_id) return;
    const screen = tw.screen;
    const id = tw.client_id;
    try {
      const r = await api('PUT', clientPath('/tools'), { tools: declaredTools(screen) });
      if (r.status === 200) {
        tw.tools = SCREEN_TOOLS[screen].slice();
        tw.tools_synced_screen = screen;
        log(`tools of ${screen}: ${tw.tools.join(',')}`);
      } else if (r.status === 404) {
        await gone('PUT tools 404', id);
      } else {
        fail(`PUT tools: ${r.status} ${r.text}`);
      }
    } catch (e) {
      fail(`PUT tools: ${e.message}`);
    }
  }

  // --- calls --------------------------------------------------------------------------
  const seenCalls = new Set(); // a reconnected stream replays events (Last-Event-ID)
  async function onDispatched(d) {
    if (d.client_id !== tw.client_id || seenCalls.has(d.call_id)) return;
    seenCalls.add(d.call_id);
    const callPath = clientPath(`/calls/${encodeURIComponent(d.call_id)}`);
    log(`call ${d.call_id}: ${d.tool} ${JSON.stringify(d.arguments)}`);
    const record = { call_id: d.call_id, tool: d.tool, arguments: d.arguments, is_error: null, answer_status: null };
    tw.calls.push(record);
    try {
      const ack = await api('POST', `${callPath}/ack`, {});
      if (ack.status === 200) tw.calls_acked += 1;
      else fail(`ack ${d.call_id}: ${ack.status} ${ack.text}`);
      let body;
      try {
        const tool = TOOLS[d.tool];
        if (!tool) throw toolError(`no tool ${d.tool} in this tab`, 'unknown_tool');
        body = { content: tool.run(d.arguments || {}) };
      } catch (e) {
        body = { error: e.message, reason: e.reason || 'client_error' };
      }
      record.is_error = 'error' in body;
      const r = await api('POST', `${callPath}/result`, body);
      record.answer_status = r.status;
      if (r.status === 200) {
        tw.calls_answered += 1;
        log(`call ${d.call_id} answered${record.is_error ? ' with an error' : ''}`);
      } else {
        fail(`result ${d.call_id}: ${r.status} ${r.text}`);
      }
    } catch (e) {
      fail(`call ${d.call_id}: ${e.message}`);
    }
    showStatus();
  }

  // --- the event stream ---------------------------------------------------------------
  let stream = null;
  function openStream() {
    // EventSource cannot set headers: the credential goes as access_token (AUTH-5). After a
    // network error it reconnects by itself and sends Last-Event-ID, so no dispatch is lost.
    stream = new EventSource(`${base}/v1/sessions/${encodeURIComponent(sid)}/events?access_token=${encodeURIComponent(token)}`);
    stream.onopen = () => {
      tw.stream_open = true;
      log('event stream open');
      // Registers once the stream is open, so that no call dispatched to it is missed.
      if (!tw.client_id) register();
    };
    stream.onerror = () => {
      tw.stream_open = false;
      if (stream.readyState === EventSource.CLOSED) fail('event stream refused (the server answered other than 200 text/event-stream)');
      else log('event stream interrupted; the browser reconnects');
    };
    stream.addEventListener('client_tool_dispatched', (e) => onDispatched(JSON.parse(e.data)));
    for (const type of ['turn_completed', 'turn_failed']) {
      stream.addEventListener(type, (e) => onTurnEnded(type, JSON.parse(e.data)));
    }
    stream.addEventListener('client_unregistered', (e) => {
      const d = JSON.parse(e.data);
      if (d.client_id === tw.client_id && !tw.left) gone(`client_unregistered (${d.reason})`, d.client_id);
    });
  }

  // --- the demo's "Ask the model" (#demo=1, toolwire serve --demo) -----------------------
  // The page also plays the session's user: a message starts a turn (SES-4), and the
  // turn's end shows the model's answer. Not part of a tab client's job otherwise.
  const answerBox = document.getElementById('answer');
  let askedTurn = null;
  const endedTurns = new Map(); // turn id -> its end; the end may arrive before the 202
  function showTurnEnd(turnId) {
    const end = endedTurns.get(turnId);
    if (!answerBox || !end || turnId !== askedTurn) return;
    answerBox.textContent = end.type === 'turn_completed' ? `model: ${end.d.output}` : `turn failed: ${JSON.stringify(end.d.error)}`;
  }
  function onTurnEnded(type, d) {
    endedTurns.set(d.turn_id, { type, d });
    showTurnEnd(d.turn_id);
  }
  if (params.get('demo') === '1' && document.getElementById('ask')) {
    document.getElementById('ask').hidden = false;
    document.getElementById('ask').addEventListener('submit', async () => {
      const content = document.getElementById('ask-text').value;
      answerBox.textContent = 'asking...';
      try {
        const r = await api('POST', '/messages', { content });
        if (r.status !== 202) answerBox.textContent = `POST messages: ${r.status} ${r.text}`;
        else {
          askedTurn = r.json && r.json.turn_id;
          showTurnEnd(askedTurn);
        }
      } catch (e) {
        answerBox.textContent = `POST messages: ${e.message}`;
      }
    });
  }

  // --- screens, leaving ---------------------------------------------------------------
  function navigate(screen) {
    if (!SCREEN_TOOLS[screen]) throw new Error(`no screen ${screen}`);
    tw.screen = screen;
    for (const s of document.querySelectorAll('[data-screen-name]')) s.hidden = s.dataset.screenName !== screen;
    for (const b of document.querySelectorAll('nav button')) {
      if (b.dataset.screen === screen) b.setAttribute('aria-current', 'page');
      else b.removeAttribute('aria-current');
    }
    showStatus();
    return putTools();
  }
  tw.navigate = navigate;
  for (const b of document.querySelectorAll('nav button')) b.addEventListener('click', () => navigate(b.dataset.screen));

  let pinger = null;
  async function leave() {
    if (tw.left) return;
    tw.left = true;
    tw.leaving = true;
    clearInterval(pinger);
    if (stream) stream.close();
    tw.stream_open = false;
    if (tw.client_id) {
      try {
        const r = await api('DELETE', clientPath());
        if (r.status !== 204) fail(`DELETE: ${r.status} ${r.text}`);
        else log(`left (${tw.client_id})`);
      } catch (e) {
        fail(`DELETE: ${e.message}`);
      }
    }
    tw.leaving = false;
    showStatus();
  }
  tw.leave = leave;
  document.getElementById('leave').addEventListener('click', leave);
  // Deliberately no beforeunload/pagehide handler: a closed tab says nothing, and the server
  // ends the client when its TTL runs out (LIFE-2, LIFE-5).

  if (!sid || !token) {
    fail('the URL needs #session=...&token=...');
    return;
  }
  navigate(tw.screen);
  openStream();
  pinger = setInterval(ping, pingMs);
  showStatus();
})();
