// What kind of page this is, read from its address, and the address a
// phone joins at. Pure: no DOM, so Node tests check it.
//
//   ?present  the presenter's screen: the world alone, the panel hidden, a
//             corner with the QR code to join, the join address and how
//             many are here; people's marks drawn large (presenter.js)
//   ?embed    the world and the status line only, for an <iframe>
//   otherwise the ordinary page (a desktop layout, or a phone's)

// People's cursors and targets on the presenter's screen are drawn this
// many times their usual size: read from the back of a room.
export const PRESENT_MARK_SCALE = 2.5;

// params: URLSearchParams of the page's address.
export function pageMode(params) {
  if (params.has('present')) return 'present';
  if (params.has('embed')) return 'embed';
  return 'normal';
}

// The address a phone opens: the server's --public-url when it has one
// (hello's public_url: behind a proxy it cannot know its own), else this
// page's own origin; in room CODE, the room's /r/CODE on it. Of this page's
// own query it keeps only what the phone needs to reach the same world
// (?relays=…): not ?present, ?embed or anything else.
// location: { origin, pathname, search }; room: the room's canonical code,
// '' (or absent) for the default room.
export function joinUrl(location, publicUrl, room = '') {
  const hasPublic = typeof publicUrl === 'string' && /^https?:\/\/[^/?#]/.test(publicUrl);
  if (hasPublic && !room) return publicUrl;
  if (hasPublic) return `${publicUrl.replace(/[?#].*$/, '').replace(/\/+$/, '')}/r/${room}`;
  const kept = new URLSearchParams();
  const relays = new URLSearchParams(location.search ?? '').get('relays');
  if (relays) kept.set('relays', relays);
  const query = kept.toString();
  const path = room ? `/r/${room}` : location.pathname || '/';
  return `${location.origin}${path}${query ? `?${query}` : ''}`;
}

// The address as a person types it: no scheme, no trailing slash alone.
export function shortUrl(url) {
  return url.replace(/^https?:\/\//, '').replace(/^([^/?#]+)\/$/, '$1');
}

// "1 person here", "12 people here".
export function peopleHere(count) {
  const n = Number.isInteger(count) && count >= 0 ? count : 0;
  return `${n} ${n === 1 ? 'person' : 'people'} here`;
}
