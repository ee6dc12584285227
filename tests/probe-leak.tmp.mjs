import { execFileSync } from 'node:child_process';
import { startServer, rssKiB, sleep } from './lib/server.mjs';
import { openViewer } from './lib/viewer.mjs';
import { request } from './lib/test_rooms.mjs';
import { readFileSync } from 'node:fs';
const bin = process.env.SWARMCAST_BIN;
const s = await startServer({ testRooms: 0, agents: 50, args: ['--rate-scale', '10', '--max-rooms', '4', '--max-agents', '2000', ...(process.argv[3] ? process.argv[3].split(' ') : [])] });
const smaps = () => {
  const t = readFileSync(`/proc/${s.proc.pid}/smaps`, 'utf8').split('\n');
  const out = {}; let cur = null;
  for (const l of t) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(l);
    if (m) { cur = m[1] || '[anon]'; continue; }
    const r = /^Rss:\s+(\d+)/.exec(l); if (r) out[cur] = (out[cur] ?? 0) + Number(r[1]);
  }
  return out;
};
const N = Number(process.argv[2] || 100);
const creators = [];
for (let k = 0; k < 20; k++) creators.push(await openViewer(s.wsUrl, { localAddress: `127.0.98.${k + 1}` }));
const stats = async (label) => {
  const mark = s.output().length;
  try { execFileSync('gdb', ['-p', String(s.proc.pid), '-batch', '-ex',  'set $f = (void*)fopen("/tmp/mi-' + label + '.xml", "w")', '-ex', 'call (int)malloc_info(0, $f)', '-ex', 'call (int)fclose($f)', '-ex', 'call (void)malloc_stats()'], { stdio: 'ignore' }); } catch (e) { console.log('gdb', e.message); }
  await sleep(300);
  const o = s.output().split('--- stderr ---')[1].split('\n');
  const i = o.findIndex((l) => /^Arena 0:/.test(l));
  const j = o.findLastIndex((l) => /^Total/.test(l));
  console.log(label, o.slice(o.findLastIndex((l) => /^Arena 0:/.test(l)), o.findLastIndex((l) => /^Arena 0:/.test(l)) + 3).join(' '), '|', o.slice(j, j + 3).join(' '));
};
await stats('before');
const before = smaps(); const rss0 = rssKiB(s.proc.pid);
for (let i = 0; i < N; i++) {
  const c = creators[Math.floor(i / 15) % 20];
  let m;
  for (let t = 0; t < 20; t++) { m = await request(c, { type: 'create_room' }); if (m.code !== 'rate_limited' || /address/.test(m.message)) break; await sleep(100); }
  if (m.type !== 'room_created') { console.log(i, JSON.stringify(m)); break; }
  await request(c, { type: 'room_close', code: m.code });
  if (process.env.GAP) await sleep(Number(process.env.GAP));
}
await sleep(2500);
const after = smaps();
console.log('rss', rss0, '->', rssKiB(s.proc.pid));
for (const k of Object.keys(after)) if ((after[k] - (before[k] ?? 0)) > 500) console.log(k, before[k], '->', after[k]);
await stats('after');
const st = s.output().split('--- stderr ---')[1]; const a0 = st.lastIndexOf('<heap nr="0">'); console.log(st.slice(a0, a0 + 2500));
console.log('rss after trim', rssKiB(s.proc.pid));
for (const c of creators) c.close();
const o1 = s.output(); console.log("room_free before stop:", (o1.match(/ROOM_FREE/g) || []).length, "presence_free:", (o1.match(/PRESENCE_FREE/g) || []).length);
await s.stop();
console.log("after stop:", (s.output().match(/ROOM_FREE/g) || []).length);
