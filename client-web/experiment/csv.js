// CSV text → a header and rows of strings (RFC 4180: fields in double
// quotes may hold commas, line breaks and doubled quotes; CRLF or LF line
// ends; an empty cell is ''). The runner writes plain CSV, but a file that
// went through a spreadsheet comes back quoted, so both are read.
//
// The experiment page's scripts are classic scripts, not ES modules: a page
// opened from disk (file://) may not load modules in Chromium, and the page
// must read a result with no server. Each file adds its part to one
// namespace, window.SwarmcastExperiment.
(function (ns) {
  'use strict';

  // Returns { header: string[], rows: string[][] }; throws an Error naming
  // the line for an unterminated quote or a row whose cell count differs
  // from the header's. Blank lines are skipped.
  function parseCsv(text) {
    const records = [];
    let record = [];
    let cell = '';
    let quoted = false;
    let line = 1; // of the character being read, for messages
    let recordLine = 1;
    let i = 0;
    if (text.charCodeAt(0) === 0xfeff) i = 1; // a byte-order mark from a spreadsheet
    const endRecord = () => {
      record.push(cell);
      cell = '';
      // A blank line is one empty cell: skipped.
      if (!(record.length === 1 && record[0] === '')) records.push({ cells: record, line: recordLine });
      record = [];
    };
    for (; i < text.length; i++) {
      const c = text[i];
      if (quoted) {
        if (c === '"') {
          if (text[i + 1] === '"') { cell += '"'; i++; } else quoted = false;
        } else {
          if (c === '\n') line++;
          cell += c;
        }
      } else if (c === '"') {
        quoted = true;
      } else if (c === ',') {
        record.push(cell);
        cell = '';
      } else if (c === '\n' || c === '\r') {
        if (c === '\r' && text[i + 1] === '\n') i++;
        endRecord();
        line++;
        recordLine = line;
      } else {
        cell += c;
      }
    }
    if (quoted) throw new Error(`line ${recordLine}: a quoted cell is not closed`);
    if (cell !== '' || record.length > 0) endRecord();
    if (records.length === 0) throw new Error('the file is empty');
    const header = records[0].cells;
    const rows = [];
    for (const r of records.slice(1)) {
      if (r.cells.length !== header.length) {
        throw new Error(`line ${r.line}: ${r.cells.length} cells, but the header has ${header.length}`);
      }
      rows.push(r.cells);
    }
    return { header, rows };
  }

  // A cell as a number, or null when it is empty or not a number (a metric
  // with no value, such as min_clearance without obstacles, is empty).
  function cellNumber(s) {
    if (s === '' || s === undefined) return null;
    const v = Number(s);
    return Number.isFinite(v) ? v : null;
  }

  ns.parseCsv = parseCsv;
  ns.cellNumber = cellNumber;
})(globalThis.SwarmcastExperiment ??= {});
