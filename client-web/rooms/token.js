// A room's token (PROTOCOL.md, "Rooms"): given once to the room's creator by
// `room_created`, it makes its holder the room's operator (`auth`, like the
// control token). The page keeps it in localStorage under
// swarmcast.room.CODE.token, so that a reload, another tab or tomorrow's
// visit keeps the role; an operator link (/r/CODE#token=r_…) hands it to
// another device, which moves it from the address into storage at once.
//
// Pure (storage, location and history are passed in), for Node tests.

export function roomTokenKey(code) {
  return `swarmcast.room.${code}.token`;
}

// What a room token looks like: "r_" and then letters, digits, - or _
// (the server's are r_ and 32 lowercase hex digits).
export function isRoomToken(token) {
  return typeof token === 'string' && /^r_[0-9A-Za-z_-]{1,200}$/.test(token);
}

export function readRoomToken(storage, code) {
  if (!code) return null;
  try {
    const t = storage?.getItem(roomTokenKey(code));
    return isRoomToken(t) ? t : null;
  } catch {
    return null; // storage blocked: the page just does not remember
  }
}

// token null forgets it. True when stored.
export function writeRoomToken(storage, code, token) {
  if (!code) return false;
  try {
    if (token === null) storage?.removeItem(roomTokenKey(code));
    else storage?.setItem(roomTokenKey(code), token);
    return !!storage;
  } catch {
    return false; // quota or blocked storage: not remembered
  }
}

// The fragment of an operator link: #token=r_… (other fragment parameters
// are kept). On a room's page, before anything else: the token goes to
// storage and leaves the address bar (history.replaceState, no reload, no
// new history entry), so that it is neither bookmarked, nor shared by the
// next copy of the address, nor sent on as a referrer. Returns the token
// taken, or null.
export function takeFragmentToken({ code, location, history, storage }) {
  const hash = typeof location?.hash === 'string' ? location.hash.replace(/^#/, '') : '';
  if (!code || hash === '') return null;
  const params = new URLSearchParams(hash);
  if (!params.has('token')) return null;
  const token = params.get('token');
  params.delete('token');
  const rest = params.toString();
  try {
    history?.replaceState(history.state ?? null, '', `${location.pathname}${location.search ?? ''}${rest ? `#${rest}` : ''}`);
  } catch {
    // A sandboxed frame may forbid it; the token is still taken.
  }
  if (!isRoomToken(token)) return null;
  writeRoomToken(storage, code, token);
  return token;
}

// The link that makes its opener an operator of the room: the room's join
// address (present/page_mode.js joinUrl) with the token in the fragment
// (never sent to a server by a browser).
export function operatorLink(joinAddress, token) {
  return `${joinAddress.replace(/#.*$/, '')}#token=${encodeURIComponent(token)}`;
}
