// Tests of the experiment page's CSV reader (client-web/experiment/csv.js).
//   node --test tests/js/experiment/
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { loadClassicScripts } from '../../lib/classic_scripts.mjs';

const X = loadClassicScripts(['experiment/csv.js'], 'SwarmcastExperiment');

test('plain rows, empty cells kept as empty strings, a final newline or none', () => {
  for (const text of ['a,b,c\n1,,3\n,,\n', 'a,b,c\n1,,3\n,,']) {
    assert.deepEqual(X.parseCsv(text), { header: ['a', 'b', 'c'], rows: [['1', '', '3'], ['', '', '']] });
  }
});

test('quoted cells: commas, doubled quotes, line breaks, an empty quoted cell', () => {
  const text = 'name,note,v\r\n"w_ali","a, b",1\r\n"say ""hi""","two\nlines",""\r\n';
  assert.deepEqual(X.parseCsv(text).rows, [['w_ali', 'a, b', '1'], ['say "hi"', 'two\nlines', '']]);
});

test('CRLF, blank lines and a byte-order mark are tolerated', () => {
  assert.deepEqual(X.parseCsv('\ufeffa,b\r\n\r\n1,2\r\n\n3,4\r\n'), { header: ['a', 'b'], rows: [['1', '2'], ['3', '4']] });
});

test('a row with the wrong number of cells, an open quote, an empty file: errors naming the line', () => {
  assert.throws(() => X.parseCsv('a,b\n1,2\n1,2,3\n'), /line 3: 3 cells, but the header has 2/);
  assert.throws(() => X.parseCsv('a,b\n1,"2\n3,4\n'), /line 2: a quoted cell is not closed/);
  assert.throws(() => X.parseCsv('a,b\n"x\ny",1,2\n'), /line 2: 3 cells/, 'the line where the row starts');
  assert.throws(() => X.parseCsv(''), /empty/);
});

test('cellNumber: numbers, and null for empty or non-numeric cells', () => {
  assert.equal(X.cellNumber('0.068749818'), 0.068749818);
  assert.equal(X.cellNumber('-1e-3'), -0.001);
  assert.equal(X.cellNumber(''), null);
  assert.equal(X.cellNumber('wrap'), null);
  assert.equal(X.cellNumber('nan'), null);
});
