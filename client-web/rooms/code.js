// A room's code (PROTOCOL.md, "Rooms"): 8 characters from an alphabet
// without the look-alikes 0/O and 1/I/L, read aloud and typed on a phone.
// Case does not matter and dashes, spaces and dots typed inside are
// ignored; the canonical form is upper case without a dash ("K7PXM3QD"),
// shown to people as "K7PX-M3QD". The room is at /r/CODE; the page at any
// other path is in the default room (code ""), as before rooms.
//
// Pure: no DOM, so Node tests check it.

export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const CODE_LENGTH = 8;

// What a person may type between the characters: dashes (a phone's
// keyboard may turn "-" into a typographic dash), spaces of any kind, dots.
const IGNORED = /[-\u2010-\u2015\u2212\s.]/gu;

// Upper case, without the ignored characters. Not checked.
export function normaliseCode(text) {
  return String(text ?? '').replace(IGNORED, '').toUpperCase();
}

// True for a canonical code (normalised, 8 characters of the alphabet).
export function isCode(code) {
  if (typeof code !== 'string' || code.length !== CODE_LENGTH) return false;
  for (const ch of code) if (!CODE_ALPHABET.includes(ch)) return false;
  return true;
}

// What a person typed (or pasted: a whole room address works too) →
// { code } (canonical) or { error } (a sentence saying what is wrong);
// { code: '' , error } for nothing typed.
export function parseCode(text) {
  let raw = String(text ?? '').trim();
  // A pasted address: https://host/r/K7PX-M3QD?relays=…#… → K7PX-M3QD.
  const m = /\/r\/([^/?#]*)/.exec(raw);
  if (m) raw = safeDecode(m[1]);
  const code = normaliseCode(raw);
  if (code === '') return { code: '', error: 'Type a room code, e.g. K7PX-M3QD.' };
  const bad = [...new Set([...code].filter((ch) => !CODE_ALPHABET.includes(ch)))];
  if (bad.length) {
    const lookAlikes = bad.some((ch) => '01OIL'.includes(ch));
    return {
      code: null,
      error: `A room code has no ${bad.map((ch) => `“${ch}”`).join(', ')}` +
        (lookAlikes ? ' (codes never use 0, O, 1, I or L: they look alike).' : '.'),
    };
  }
  if (code.length !== CODE_LENGTH) {
    return { code: null, error: `A room code has ${CODE_LENGTH} characters; that has ${code.length}.` };
  }
  return { code };
}

function safeDecode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// "K7PXM3QD" → "K7PX-M3QD" (the default room's "" stays "").
export function formatCode(code) {
  if (typeof code !== 'string' || code.length <= 4) return code ?? '';
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

// The room this page is in, from its path:
//   not /r/…               → { code: '' } (the default room)
//   /r/k7px-m3qd (or /r/K7PXM3QD/) → { code: 'K7PXM3QD' }
//   /r/HELLO               → { code: null, raw: 'HELLO', error } (never sent:
//                            a malformed code would only count as a wrong
//                            guess against this address)
export function roomFromPath(pathname) {
  const m = /^\/r\/([^/]*)\/?$/.exec(String(pathname ?? ''));
  if (!m) return { code: '' };
  const raw = safeDecode(m[1]);
  const parsed = parseCode(raw);
  if (parsed.code) return { code: parsed.code };
  return { code: null, raw, error: parsed.error };
}

// The path of a room's page ("" → the default room's "/").
export function roomPath(code) {
  return code ? `/r/${code}` : '/';
}

// Where the page goes to open room `code` (navigation within this server):
// its path, keeping only what reaching the room needs from the current
// query (?relays=…, and ?wire=1 if the page asked for v1).
export function roomHref(code, search = '') {
  const from = new URLSearchParams(search);
  const kept = new URLSearchParams();
  for (const name of ['relays', 'wire']) if (from.has(name)) kept.set(name, from.get(name));
  const q = kept.toString();
  return `${roomPath(code)}${q ? `?${q}` : ''}`;
}
