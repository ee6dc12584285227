// A control-token guesser as a stranger runs one: from each of its
// addresses it opens a session, sends one wrong `auth`, takes the answer,
// drops the connection and opens the next at once, as fast as it can, so
// that every fresh connection's budget is spent on a guess. It runs in a
// worker thread: its loop never delays the test's own bystanders, whose
// snapshot rates are measured on the main thread.
//
//   const log = await guess({ url, addresses: ['127.0.0.2'], durationMs: 8000 });
//
// The log holds one entry per attempt, { t (ms since the start), address,
// answer }, answer being what the server said: 'bad_token', 'rate_limited'
// (with `message`), 'ack' (the guess was right!), 'http 429' and the like
// (refused before the upgrade), 'closed 1013' (closed before answering),
// 'error' or 'timeout'.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const ATTEMPT_TIMEOUT_MS = 5000;

/** One connection, one wrong guess: resolves with { answer, message }. */
function attempt(url, localAddress, token) {
  return new Promise((resolve) => {
    let settled = false;
    const ws = new WebSocket(url, ['swarmcast.v2'], { localAddress, handshakeTimeout: ATTEMPT_TIMEOUT_MS });
    const timer = setTimeout(() => finish({ answer: 'timeout' }), ATTEMPT_TIMEOUT_MS);
    function finish(result) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ws.terminate();
      resolve(result);
    }
    ws.on('unexpected-response', (req, res) => {
      req.destroy();
      finish({ answer: `http ${res.statusCode}` });
    });
    ws.on('error', () => finish({ answer: 'error' }));
    ws.on('close', (code) => finish({ answer: `closed ${code}` }));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let m;
      try { m = JSON.parse(data.toString('utf8')); } catch { return; }
      if (m.type === 'hello') ws.send(JSON.stringify({ type: 'auth', token, id: 1 }));
      else if (m.type === 'ack' && m.cmd === 'auth') finish({ answer: 'ack' });
      else if (m.type === 'error' && m.cmd === 'auth') finish({ answer: m.code, message: m.message });
    });
  });
}

async function runGuesser({ url, addresses, durationMs, loopsPerAddress }) {
  const start = performance.now();
  const log = [];
  let n = 0;
  const loop = async (address) => {
    while (performance.now() - start < durationMs) {
      const r = await attempt(url, address, `wrong-guess-${n++}`);
      log.push({ t: Math.round(performance.now() - start), address, ...r });
    }
  };
  const loops = [];
  for (const a of addresses) for (let k = 0; k < loopsPerAddress; k++) loops.push(loop(a));
  await Promise.all(loops);
  return log;
}

if (!isMainThread && workerData?.guesser) {
  runGuesser(workerData.guesser).then((log) => parentPort.postMessage(log));
}

/**
 * Guesses from every address of `addresses` for durationMs, each with
 * loopsPerAddress connections at a time; resolves with the log.
 */
export function guess({ url, addresses, durationMs, loopsPerAddress = 1 }) {
  return new Promise((resolve, reject) => {
    const w = new Worker(fileURLToPath(import.meta.url), {
      workerData: { guesser: { url, addresses, durationMs, loopsPerAddress } },
    });
    w.once('message', (log) => { resolve(log); w.terminate(); });
    w.once('error', reject);
    w.once('exit', (code) => reject(new Error(`the guesser's worker exited with ${code} before reporting`)));
  });
}

/** How many entries of log answered `answer` (from `address`, when given). */
export function countAnswers(log, answer, address) {
  return log.filter((e) => e.answer === answer && (address === undefined || e.address === address)).length;
}

/** The answers of a log as "answer: count" pairs, for the CI log. */
export function summarize(log) {
  const counts = {};
  for (const e of log) counts[e.answer] = (counts[e.answer] ?? 0) + 1;
  return Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ');
}
