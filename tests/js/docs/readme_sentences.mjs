// The units of text of a Markdown document, for "no sentence is lost": its
// prose split into sentences, each table row and each line of code, each
// heading; and a document's text in the same normal form, to look them up in.
// Links count by their text (a moved page's link targets change, its words
// do not), and so do pictures by their alt text.

// One normal form for a unit and for the text it is looked up in.
export function normalize(text) {
  return text
    .replace(/<img\b[^>]*\balt="([^"]*)"[^>]*>/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)\s]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

// Sentences end at . ! ? followed by a space and a capital, a bracket, a
// quote or a code span; "e.g. X" and "i.e. X" do not end one.
function sentences(block) {
  return block.split(/(?<!\be\.g|\bi\.e)(?<=[.!?])\s+(?=[A-Z(*"`[])/).map((s) => s.trim()).filter(Boolean);
}

export function units(markdown) {
  const out = [];
  let fenced = false;
  let block = [];
  const flush = () => {
    if (block.length) out.push(...sentences(normalize(block.join(' '))));
    block = [];
  };
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) {
      flush();
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      if (line.trim()) out.push(normalize(line));
      continue;
    }
    if (!line.trim()) { flush(); continue; }
    if (/^\s*\|/.test(line)) {
      flush();
      if (!/^\s*\|[\s:|-]+\|\s*$/.test(line)) out.push(normalize(line));
      continue;
    }
    const heading = /^#+\s+(.*)$/.exec(line);
    if (heading) { flush(); out.push(normalize(heading[1])); continue; }
    const item = /^\s{0,3}(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    if (item) { flush(); block.push(item[1]); continue; }
    block.push(line.trim());
  }
  flush();
  return out.filter((u) => u.length > 0);
}
