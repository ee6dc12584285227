// What a new room starts from: the "New room" button's choices, and the
// `create_room` command each sends (PROTOCOL.md, "Rooms"). One list, so
// that a scenario the server ships is one more entry here. The server
// answers `error` for a scenario it does not know; the page shows its
// message.

// key: the <option>'s value; label: what people read; title: more words.
export const NEW_ROOM_CHOICES = [
  { key: 'defaults', from: 'defaults', label: 'the defaults',
    title: 'a fresh flock with the server\u2019s default model and parameters' },
  { key: 'copy', from: 'copy', label: 'a copy of this room',
    title: 'this room\u2019s model, parameters and population, in a room of its own' },
  { key: 'scenario:couzin-torus', from: 'scenario', scenario: 'couzin-torus', label: 'Couzin: the torus',
    title: 'Couzin et al. 2002\u2019s zones, set up to mill in a torus' },
  { key: 'scenario:olfati-lattice', from: 'scenario', scenario: 'olfati-lattice', label: 'Olfati-Saber: the lattice',
    title: 'Olfati-Saber 2006\u2019s flocking, settling into a lattice' },
  { key: 'scenario:obstacles', from: 'scenario', scenario: 'obstacles', label: 'A flock round obstacles',
    title: 'Reynolds\u2019 flock steering round three obstacles, one of them moving, to a target' },
];

// A room's name: at most this many characters (the server's limit: a
// person's name's rules, PROTOCOL.md "Names").
export const ROOM_NAME_MAX = 24;

// A typed name: trimmed, inner runs of spaces made one, cut at
// ROOM_NAME_MAX characters (code points, never half of one).
export function cleanRoomName(text) {
  const s = String(text ?? '').replace(/\s+/gu, ' ').trim();
  return [...s].slice(0, ROOM_NAME_MAX).join('').trim();
}

export function choiceByKey(key) {
  return NEW_ROOM_CHOICES.find((c) => c.key === key) ?? NEW_ROOM_CHOICES[0];
}

// The command (without its id, which the connection adds).
export function createRoomCommand(choice, name = '') {
  const c = typeof choice === 'string' ? choiceByKey(choice) : choice;
  const cmd = { type: 'create_room', from: c.from };
  if (c.from === 'scenario') cmd.scenario = c.scenario;
  const n = cleanRoomName(name);
  if (n !== '') cmd.name = n;
  return cmd;
}

// Whether this page may offer "New room": hello's `rooms` says who may
// create them ("open": anyone, "operators": operators only, "off" or a
// server without rooms: no one).
export function mayCreateRooms(rooms, role) {
  if (rooms === 'open') return true;
  if (rooms === 'operators') return role === 'operator';
  return false;
}
