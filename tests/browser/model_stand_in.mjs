// The model of tests/browser/tab_in_chromium.sh: an OpenAI-compatible endpoint (SPEC 8) that
// answers from a model script in the format of `toolwire serve --model-script`
// (docs/reference-server.md), with two differences that let the test see what the model saw:
// - a tool call's "name" is the tool as the tab declares it; the stand-in calls the offered
//   tool `<client name>__<name>` (CALL-2), whatever name the server assigned the tab;
// - a "content" step's text is followed by " results=" and the JSON list of the tool messages
//   the model received in this turn ({tool_call_id, content}), so the turn's output
//   (turn_completed) shows every tool result exactly as the model got it.
// Every request is appended to REQUESTS (one JSON line) with the tool names it offered.
// Usage: node model_stand_in.mjs SCRIPT REQUESTS; prints "listening on http://127.0.0.1:PORT".
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [scriptFile, requestsFile] = process.argv.slice(2);
const script = JSON.parse(readFileSync(scriptFile, 'utf8'));
let calls = 0;

function answer(body) {
  const messages = body.messages || [];
  let end = messages.length;
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') { lastUser = i; break; }
  if (lastUser < 0) throw new Error('no user message');
  const text = String(messages[lastUser].content);
  const rule = script.rules.find((r) => r.match && text.includes(r.match)) || script.rules.find((r) => !r.match);
  const after = messages.slice(lastUser + 1, end);
  const step = rule && rule.steps[after.filter((m) => m.role === 'assistant').length];
  if (!step) throw new Error(`the script has no step for "${text}" after ${after.length} messages`);
  const offered = (body.tools || []).map((t) => t.function.name);
  if (step.tool_calls) {
    return {
      role: 'assistant',
      content: null,
      tool_calls: step.tool_calls.map((c) => {
        const name = offered.find((n) => n.endsWith(`__${c.name}`)) || `missing__${c.name}`;
        return { id: `mc_${++calls}`, type: 'function', function: { name, arguments: JSON.stringify(c.arguments || {}) } };
      }),
    };
  }
  const results = after.filter((m) => m.role === 'tool').map((m) => ({ tool_call_id: m.tool_call_id, content: m.content }));
  return { role: 'assistant', content: `${step.content} results=${JSON.stringify(results)}` };
}

const server = createServer((req, res) => {
  let data = '';
  req.on('data', (c) => { data += c; });
  req.on('end', () => {
    let status = 200;
    let reply;
    try {
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) throw new Error(`no route ${req.method} ${req.url}`);
      const body = JSON.parse(data);
      const message = answer(body);
      appendFileSync(requestsFile, `${JSON.stringify({ offered: (body.tools || []).map((t) => t.function.name), messages: body.messages, answer: message })}\n`);
      reply = { id: `cmpl_${calls}`, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }] };
    } catch (e) {
      status = 500;
      reply = { error: { message: e.message } };
      process.stderr.write(`model stand-in: ${e.message}\n`);
    }
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(reply));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
