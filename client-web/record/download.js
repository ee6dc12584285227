// Files the page hands to the user: metrics CSV, screenshots, clips.

// A file download of text or a Blob, named `name` (no page navigation: an
// anchor with `download`, clicked, then the object URL released).
export function downloadBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // Late enough for the browser to have started reading it.
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// A file name stamp: 2026-11-22T13-05-09 (local time would be ambiguous).
export function fileStamp(date = new Date()) {
  return date.toISOString().slice(0, 19).replace(/:/g, '-');
}
