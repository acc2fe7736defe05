// Drives real browser tabs in headless Chromium (docs/browser.md). A long-lived process: one
// JSON command per line on stdin, one JSON reply per line on stdout, in order:
//   {"cmd":"open","tab":"a","url":"http://127.0.0.1:PORT/__toolwire_tab/index.html#session=...&token=..."}
//   {"cmd":"navigate","tab":"a","screen":"form"}   {"cmd":"freeze","tab":"a"}  {"cmd":"resume","tab":"a"}
//   {"cmd":"offline","tab":"a"}  {"cmd":"online","tab":"a"}  {"cmd":"reload","tab":"a"}
//   {"cmd":"leave","tab":"a"}    {"cmd":"close","tab":"a"}    {"cmd":"state","tab":"a"}   {"cmd":"query","tab":"a","selector":"tr.highlighted"}
//   {"cmd":"screenshot","tab":"a","path":"/tmp/a.png"}       {"cmd":"page_server"[,"port":P]}   {"cmd":"quit"}
//   {"cmd":"open","tab":"a","cross_origin":true,"url":"http://127.0.0.1:P/__toolwire_tab/index.html#...&base=http://TARGET"}
//   {"cmd":"open","tab":"b","window":"w","until":"loaded","url":...}  (a tab of window w, done once loaded)
//   {"cmd":"ask","tab":"a","text":"please highlight row 2"}  (the demo page's "Ask the model")
// Replies are {"ok":true,...} or {"ok":false,"error":"..."}; an "id" in a command is echoed.
// Same-origin mode: the page's URL is on the target's own origin, and every request under
// /__toolwire_tab/ is answered here with browser/tab/ (page.route), so the tab's fetch and
// EventSource calls are same-origin and need no CORS from the server.
// In same-origin mode each tab reaches the target through a TCP relay of its own on
// 127.0.0.1 (the page's origin is the relay's), so that "offline" can break the tab's open
// connections as losing the network does: Chromium's offline switch only fails new
// requests, and an event stream already open stayed open (docs/browser.md).
// Cross-origin mode (docs/cors.md): "page_server" starts a static server of browser/tab/ on
// 127.0.0.1 (on `port`, or any) and answers its origin; a tab opened on that port (as
// 127.0.0.1 or localhost, two origins) loads its page from there, with `base=` in the URL
// naming the target. Such a tab is never intercepted. Why: with interception on, Playwright
// answers CORS preflights itself, so the server's own preflight answers would never be
// tested; and a page from a real loopback server stays in the local address space, as the
// target is. An `open` with "cross_origin" starts the page server on the URL's port itself
// and gives the tab a relay to the target named by `base=`, as in same-origin mode (the
// page's requests then go to the relay's origin, still across origins).
// Environment: CHROMIUM (default /usr/bin/chromium), TOOLWIRE_DRIVER_TIMEOUT_MS (default
// 15000, the deadline of every wait).
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import net from 'node:net';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const TAB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../tab');
const TAB_PREFIX = '/__toolwire_tab/';
const DEADLINE_MS = Number(process.env.TOOLWIRE_DRIVER_TIMEOUT_MS || 15000);
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

function log(line) {
  process.stderr.write(`driver: ${line}\n`);
}

// Every wait ends: the promise, or an error naming what did not happen in time.
function deadline(promise, what, ms = DEADLINE_MS) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Polls fn() in the page until it returns a truthy value.
async function pollPage(tab, what, fn, arg) {
  const end = Date.now() + DEADLINE_MS;
  let last;
  for (;;) {
    last = await deadline(tab.page.evaluate(fn, arg), what);
    if (last && last.done) return last;
    if (Date.now() > end) throw new Error(`${what}: not within ${DEADLINE_MS} ms (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let browser = null;
const tabs = new Map(); // name -> {context, page, cdp, console: [], frozen, relay, window}
// Tabs opened with one "window" share its browser context, and so its connections
// (Chromium opens at most 6 to an origin over HTTP/1.1), its offline switch and one relay
// (one origin); the window closes with its last tab.
const windows = new Map(); // name -> {context, relay, tabs: Set of tab names}

async function getBrowser() {
  if (!browser) {
    const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
    browser = await deadline(
      chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] }),
      `launching ${executablePath}`,
      Math.max(DEADLINE_MS, 30000),
    );
    log(`chromium ${browser.version()}`);
  }
  return browser;
}

// Loads the tab page once as `open` does (context, route, page, CDP session, its script),
// on an origin that is never reached and whose API answers 503, and closes it. Why: the
// first page Chromium loads, and the first run of the tab's script, cost some 200 ms more
// than every later one, and runs are timed against each other (--check-determinism).
async function warmUp(b) {
  const context = await deadline(b.newContext({ viewport: { width: 1000, height: 700 } }), 'warm-up context');
  try {
    const origin = 'http://warm-up.toolwire.invalid';
    await context.route(`${origin}/**`, (route) =>
      route.request().url().startsWith(`${origin}${TAB_PREFIX}`)
        ? serveTabFile(route)
        : route.fulfill({ status: 503, body: '{"error":{"code":"unavailable","message":"warm-up"}}', headers: { 'content-type': 'application/json' } }));
    const page = await deadline(context.newPage(), 'warm-up page');
    await deadline(context.newCDPSession(page), 'warm-up CDP session');
    await deadline(page.goto(`${origin}${TAB_PREFIX}index.html#session=warm-up&token=warm-up`, { waitUntil: 'load' }), 'warm-up load');
    await deadline(page.evaluate(() => !!window.toolwire), 'warm-up script');
  } finally {
    await context.close().catch(() => {});
  }
}

// A context and page made ready before a tab is opened. Why: making them (a renderer
// process) takes 300 to 800 ms on a loaded 2-core machine, and that spread, twice in one
// run, moved a tab's registration by more than the tolerance between two runs of one
// scenario. The next one is made as soon as one is taken, so `open` mostly only loads.
let spare = null; // Promise of {context, page}, or null
function makeSpare(b) {
  spare = (async () => {
    const context = await deadline(b.newContext({ viewport: { width: 1000, height: 700 } }), 'new browser context');
    try {
      return { context, page: await deadline(context.newPage(), 'new page') };
    } catch (e) {
      await context.close().catch(() => {});
      throw e;
    }
  })();
  spare.catch(() => {}); // a failure is reported by the `open` that takes it
}
async function takeSpare(b) {
  if (!spare) makeSpare(b);
  const ready = spare;
  makeSpare(b);
  return ready;
}

function need(cmd, key) {
  const v = cmd[key];
  if (typeof v !== 'string' || v === '') throw new Error(`"${cmd.cmd}" needs the string field "${key}"`);
  return v;
}
function tabOf(cmd) {
  const name = need(cmd, 'tab');
  const tab = tabs.get(name);
  if (!tab) throw new Error(`no open tab "${name}"`);
  return tab;
}
// The tab, for a command that runs script in it: refused while it is frozen.
function liveTab(cmd) {
  const tab = tabOf(cmd);
  if (tab.frozen) throw new Error(`tab "${cmd.tab}" is frozen; "resume" it first`);
  return tab;
}

// The answer to a request for `pathname` under TAB_PREFIX: a file of browser/tab/, or 404.
async function tabFile(pathname) {
  const rel = pathname.slice(TAB_PREFIX.length) || 'index.html';
  const file = path.resolve(TAB_DIR, rel);
  if (!pathname.startsWith(TAB_PREFIX) || !file.startsWith(TAB_DIR + path.sep)) return { status: 404, body: 'outside the tab' };
  try {
    const body = await readFile(file);
    return { status: 200, body, headers: { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' } };
  } catch {
    return { status: 404, body: `no ${rel} in browser/tab` };
  }
}

async function serveTabFile(route) {
  await route.fulfill(await tabFile(new URL(route.request().url()).pathname));
}

// The static servers of cross-origin mode, by port ("page_server", or an `open` with
// "cross_origin"); `firstPageServer` is the one a "page_server" without a port answers.
const pageServers = new Map(); // port -> http.Server
let firstPageServer = null;
function fromPageServer(url) {
  return ['127.0.0.1', 'localhost'].includes(url.hostname) && pageServers.has(Number(url.port));
}
async function startPageServer(port) {
  if (pageServers.has(port)) return port;
  const server = createServer(async (req, res) => {
    const pathname = new URL(req.url, 'http://page').pathname;
    // The browser asks for a favicon by itself; a 404 would be an error in the tab's console.
    if (pathname === '/favicon.ico') return res.writeHead(204).end();
    const answer = await tabFile(pathname);
    res.writeHead(answer.status, answer.headers || { 'content-type': 'text/plain' });
    res.end(answer.body);
  });
  await deadline(new Promise((resolve, reject) => {
    server.once('error', (e) => reject(e.code === 'EADDRINUSE'
      ? new Error(`cannot serve the tab page on 127.0.0.1:${port}: the port is in use (the target's CORS origin names it)`)
      : e));
    server.listen(port, '127.0.0.1', resolve);
  }), 'starting the page server');
  const bound = server.address().port;
  pageServers.set(bound, server);
  log(`page server on http://127.0.0.1:${bound}`);
  return bound;
}

// The tab's relay to the target (same-origin mode): every connection the tab's page makes
// is piped to `target` ({host, port}); while `refusing`, new ones are closed as they come.
async function startRelay(target) {
  const relay = { sockets: new Set(), refusing: false, server: null, port: 0 };
  const track = (socket) => {
    relay.sockets.add(socket);
    socket.on('close', () => relay.sockets.delete(socket));
  };
  relay.server = net.createServer((inbound) => {
    track(inbound);
    if (relay.refusing) return inbound.destroy();
    const outbound = net.connect(target.port, target.host);
    track(outbound);
    // Either side failing ends both: the page sees what a broken connection shows it.
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await deadline(new Promise((resolve, reject) => {
    relay.server.once('error', reject);
    relay.server.listen(0, '127.0.0.1', resolve);
  }), 'starting the tab\'s relay');
  relay.port = relay.server.address().port;
  // As a lost network: every connection ends, and new ones are refused until `refusing`
  // is cleared.
  relay.cut = () => {
    relay.refusing = true;
    for (const socket of relay.sockets) socket.destroy();
  };
  relay.close = () => {
    if (relay.closed) return; // the window's tabs share it
    relay.closed = true;
    relay.cut();
    relay.server.close();
  };
  return relay;
}

// Points `url` at `relay` instead of the target: base= in its fragment across origins, else
// its own host (the page then runs on the relay's origin).
function throughRelay(url, relay, crossOrigin) {
  const at = `127.0.0.1:${relay.port}`;
  if (!crossOrigin) {
    url.host = at;
    return;
  }
  const hash = new URLSearchParams(url.hash.slice(1));
  hash.set('base', `http://${at}`);
  url.hash = hash.toString();
}

// Closes a tab as a user does (no beforeunload, nothing sent by the page): its page, and
// with the last tab of its window (or a tab of its own) the context and the relay too.
async function closeTab(name, tab) {
  tabs.delete(name);
  const win = tab.window === null ? null : windows.get(tab.window);
  if (win) win.tabs.delete(name);
  if (win && win.tabs.size > 0) {
    await deadline(tab.page.close(), 'closing the tab');
    return;
  }
  if (win) windows.delete(tab.window);
  try {
    await deadline(tab.context.close(), 'closing the tab');
  } finally {
    if (tab.relay) tab.relay.close();
  }
}

const commands = {
  // Starts Chromium now rather than with the first tab, so that every tab's `open` takes
  // as long (the harness times runs against each other).
  // It also opens and closes one page first: Chromium's first context, renderer and page
  // load cost some 800 ms more than every later one's, so without this the first run's
  // first tab registered that much later than the second run's (--check-determinism of
  // two_tabs_of_one_app differed in 3 runs out of 20).
  async launch() {
    const b = await getBrowser();
    await warmUp(b);
    makeSpare(b);
    await spare;
    return { version: b.version() };
  },
  async open(cmd) {
    const name = need(cmd, 'tab');
    if (tabs.has(name)) throw new Error(`tab "${name}" is already open`);
    const url = new URL(need(cmd, 'url'));
    const b = await getBrowser();
    const windowName = typeof cmd.window === 'string' && cmd.window !== '' ? cmd.window : null;
    let win = windowName === null ? null : windows.get(windowName);
    const joins = !!win; // a later tab of an open window: its context, relay and route
    let context, page;
    if (joins) {
      context = win.context;
      page = await deadline(context.newPage(), 'new page');
    } else {
      ({ context, page } = await takeSpare(b));
      if (windowName !== null) {
        win = { context, relay: null, tabs: new Set() };
        windows.set(windowName, win);
      }
    }
    if (win) win.tabs.add(name);
    const tab = { context, page, cdp: null, console: [], frozen: false, relay: joins ? win.relay : null, window: windowName };
    tabs.set(name, tab);
    try {
      // Where the page's requests to the target go: its own relay (shared by its window),
      // so that "offline" can break them. Across origins the target is base= and the page
      // comes from our page server; else the page is on the target's origin, which the
      // relay's origin stands for, and served by the route. A page the target serves itself
      // (toolwire serve --demo's /demo/) is loaded as it is.
      const sameOrigin = !cmd.cross_origin && url.pathname.startsWith(TAB_PREFIX) && !fromPageServer(url);
      if (!joins && cmd.cross_origin) {
        await startPageServer(Number(url.port));
        const base = new URLSearchParams(url.hash.slice(1)).get('base');
        if (!base) throw new Error('"open" with "cross_origin" needs base= in the URL\'s fragment');
        const target = new URL(base);
        tab.relay = await startRelay({ host: target.hostname, port: Number(target.port) || 80 });
      } else if (!joins && sameOrigin) {
        tab.relay = await startRelay({ host: url.hostname, port: Number(url.port) || 80 });
      }
      if (tab.relay) throughRelay(url, tab.relay, !!cmd.cross_origin);
      if (!joins && sameOrigin) await context.route(`${url.origin}${TAB_PREFIX}**`, serveTabFile);
      if (win && !joins) win.relay = tab.relay;
      page.setDefaultTimeout(DEADLINE_MS);
      page.on('console', (m) => tab.console.push(`${m.type()}: ${m.text()}`));
      page.on('pageerror', (e) => tab.console.push(`pageerror: ${e.message}`));
      tab.cdp = await deadline(context.newCDPSession(page), 'CDP session');
      await deadline(page.goto(url.href, { waitUntil: 'load' }), `loading ${url.href}`);
      // A tab that may not get to register (its window's connections all held): done here.
      if (cmd.until === 'loaded') return { loaded: true };
      const s = await pollPage(tab, 'the tab registering', () => {
        const t = window.toolwire;
        if (!t) return { done: false, why: 'no window.toolwire' };
        if (t.last_error && !t.client_id) return { done: true, error: t.last_error };
        return { done: !!t.client_id, client_id: t.client_id, name: t.name, tools: t.tools };
      });
      if (s.error) throw new Error(`the tab did not register: ${s.error}`);
      return { client_id: s.client_id, name: s.name, tools: s.tools };
    } catch (e) {
      await closeTab(name, tab).catch(() => {});
      throw e;
    }
  },

  async navigate(cmd) {
    const tab = liveTab(cmd);
    const screen = need(cmd, 'screen');
    const button = tab.page.locator(`nav button[data-screen="${screen}"]`);
    if ((await deadline(button.count(), 'finding the screen button')) !== 1) throw new Error(`no screen "${screen}" in the tab`);
    await button.click({ timeout: DEADLINE_MS });
    // Done when the server has the screen's tool list (the PUT answered 200).
    const s = await pollPage(tab, `the tool list of "${screen}" reaching the server`, (want) => {
      const t = window.toolwire;
      return { done: t.tools_synced_screen === want, tools: t.tools, last_error: t.last_error };
    }, screen);
    return { screen, tools: s.tools };
  },

  // Page.setWebLifecycleState is the lifecycle transition (it fires the page's freeze and
  // resume events where Chromium honours it). Headless Chromium 156 accepts it on a visible
  // page and then goes on running the page's timers and handlers, so the driver also pauses
  // the page's JavaScript with Debugger.pause: a frozen tab runs no script at all (no ping,
  // no ack, no result) until "resume". Commands that run script in it are refused meanwhile.
  async freeze(cmd) {
    const tab = tabOf(cmd);
    if (tab.frozen) return { already: true };
    await deadline(tab.cdp.send('Page.setWebLifecycleState', { state: 'frozen' }), 'Page.setWebLifecycleState frozen');
    await deadline(tab.cdp.send('Debugger.enable'), 'Debugger.enable');
    await deadline(tab.cdp.send('Debugger.pause'), 'Debugger.pause');
    tab.frozen = true;
    return {};
  },
  async resume(cmd) {
    const tab = tabOf(cmd);
    if (!tab.frozen) return { already: true };
    await deadline(tab.cdp.send('Debugger.resume'), 'Debugger.resume');
    await deadline(tab.cdp.send('Debugger.disable'), 'Debugger.disable');
    await deadline(tab.cdp.send('Page.setWebLifecycleState', { state: 'active' }), 'Page.setWebLifecycleState active');
    tab.frozen = false;
    return {};
  },
  // Offline: new requests fail (Chromium's switch) and, through the tab's relay, the
  // connections already open break, its event stream among them; EventSource then retries
  // by itself every few seconds, and once online its retry sends Last-Event-ID (SES-3).
  // A tab of a window takes the whole window offline: its context and relay are shared.
  async offline(cmd) {
    const tab = tabOf(cmd);
    await deadline(tab.context.setOffline(true), 'going offline');
    if (tab.relay) tab.relay.cut();
    return { connections_broken: !!tab.relay };
  },
  async online(cmd) {
    const tab = tabOf(cmd);
    if (tab.relay) tab.relay.refusing = false;
    await deadline(tab.context.setOffline(false), 'going online');
    return {};
  },
  async reload(cmd) {
    const tab = liveTab(cmd);
    await deadline(tab.page.reload({ waitUntil: 'load' }), 'reloading');
    const s = await pollPage(tab, 'the reloaded tab registering', () => {
      const t = window.toolwire;
      return { done: !!(t && t.client_id), client_id: t && t.client_id, name: t && t.name, tools: t && t.tools };
    });
    return { client_id: s.client_id, name: s.name, tools: s.tools };
  },
  // The user presses "Leave": the tab DELETEs its client (the only time it does).
  async leave(cmd) {
    const tab = liveTab(cmd);
    await tab.page.locator('#leave').click({ timeout: DEADLINE_MS });
    const s = await pollPage(tab, 'the tab leaving', () => {
      const t = window.toolwire;
      return { done: t.left && !t.leaving, last_error: t.last_error };
    });
    if (s.last_error) throw new Error(`the tab could not leave: ${s.last_error}`);
    return {};
  },
  async close(cmd) {
    await closeTab(cmd.tab, tabOf(cmd));
    return {};
  },
  async state(cmd) {
    const tab = liveTab(cmd);
    const state = await deadline(tab.page.evaluate(() => JSON.parse(JSON.stringify(window.toolwire || null))), 'reading window.toolwire');
    return { state, console: tab.console.slice(-50) };
  },
  async query(cmd) {
    const tab = liveTab(cmd);
    const selector = need(cmd, 'selector');
    const found = await deadline(tab.page.evaluate((sel) => [...document.querySelectorAll(sel)].map((el) => ({
      text: el.textContent.replace(/\s+/g, ' ').trim(),
      className: el.className,
      visible: !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length),
    })), selector), `querying ${selector}`);
    return { count: found.length, elements: found };
  },
  async screenshot(cmd) {
    const tab = tabOf(cmd);
    const file = need(cmd, 'path');
    await deadline(tab.page.screenshot({ path: file, fullPage: true, timeout: DEADLINE_MS }), 'taking a screenshot');
    return { path: file };
  },
  // The demo's "Ask the model" box (#demo=1): types the text, sends it, waits for the answer.
  async ask(cmd) {
    const tab = liveTab(cmd);
    const text = need(cmd, 'text');
    if (await tab.page.locator('#ask').isHidden()) throw new Error('the page has no visible "Ask the model" box (#demo=1)');
    await tab.page.fill('#ask-text', text);
    await tab.page.click('#ask-send');
    const s = await pollPage(tab, 'the model answering', () => {
      const a = document.getElementById('answer').textContent;
      return { done: a.startsWith('model: ') || a.startsWith('turn failed') || a.startsWith('POST'), answer: a };
    });
    return { answer: s.answer };
  },
  async page_server(cmd) {
    let port;
    if (cmd.port !== undefined) {
      port = await startPageServer(Number(cmd.port));
    } else {
      if (firstPageServer === null) firstPageServer = await startPageServer(0);
      port = firstPageServer;
    }
    return { origin: `http://127.0.0.1:${port}`, port };
  },
  async quit() {
    return {};
  },
};

async function shutdown() {
  if (spare) await spare.then(({ context }) => context.close()).catch(() => {});
  spare = null;
  for (const tab of tabs.values()) {
    await tab.context.close().catch(() => {});
    if (tab.relay) tab.relay.close();
  }
  tabs.clear();
  windows.clear();
  if (browser) await deadline(browser.close(), 'closing chromium', 10000).catch((e) => log(e.message));
  browser = null;
  for (const server of pageServers.values()) server.close();
  pageServers.clear();
}

function reply(obj) {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

// Commands run one at a time, in the order they arrive.
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
let quitting = false;
for await (const line of lines) {
  if (!line.trim()) continue;
  let cmd;
  try {
    cmd = JSON.parse(line);
    if (!cmd || typeof cmd !== 'object' || Array.isArray(cmd)) throw new Error('a command is a JSON object');
  } catch (e) {
    reply({ ok: false, error: `bad command line: ${e.message}` });
    continue;
  }
  const id = cmd.id === undefined ? {} : { id: cmd.id };
  const run = commands[cmd.cmd];
  if (!run || !Object.hasOwn(commands, cmd.cmd)) {
    reply({ ...id, ok: false, error: `unknown command "${cmd.cmd}" (one of ${Object.keys(commands).join(', ')})` });
    continue;
  }
  try {
    const result = await run(cmd);
    reply({ ...id, ok: true, ...result });
  } catch (e) {
    reply({ ...id, ok: false, error: `${cmd.cmd}: ${e.message.split('\n')[0]}` });
  }
  if (cmd.cmd === 'quit') {
    quitting = true;
    break;
  }
}
await shutdown();
if (!quitting) log('stdin closed');
process.exit(0);
