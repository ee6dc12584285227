// The QR code of the join address, drawn on a canvas. The code itself comes
// from the npm package qrcode-generator (client-web/node_modules, served as
// it is, like uPlot): loaded with a dynamic import, so that a checkout
// without `npm ci` still runs everything but this corner.
//
// qrModules() is pure (given the library), so Node tests check that what is
// drawn decodes back to the address.

export const QRCODE_URL = '../node_modules/qrcode-generator/dist/qrcode.mjs';

// The quiet zone the standard asks for around the code, in modules.
export const QUIET_MODULES = 4;

// The library (its `qrcode` function), or null when it cannot be loaded.
export function loadQrLibrary(url = new URL(QRCODE_URL, import.meta.url).href) {
  return import(url).then(
    (m) => m.qrcode ?? m.default ?? null,
    () => null,
  );
}

// { size, dark(row, col) → bool } for text: the smallest version that holds
// it, error correction M (a projected code read from across a room).
export function qrModules(qrcode, text) {
  const qr = qrcode(0, 'M');
  // An address is ASCII (location and --public-url are percent-encoded).
  qr.addData(text, 'Byte');
  qr.make();
  const size = qr.getModuleCount();
  return { size, dark: (r, c) => qr.isDark(r, c) };
}

// Draws the code black on white with its quiet zone, filling a canvas of
// cssSize × cssSize CSS pixels (whole device pixels per module, so that the
// edges stay sharp).
export function drawQr(canvas, modules, cssSize, dpr = 1) {
  const total = modules.size + 2 * QUIET_MODULES;
  const px = Math.max(1, Math.floor((cssSize * dpr) / total));
  const side = px * total;
  canvas.width = side;
  canvas.height = side;
  canvas.style.width = `${side / dpr}px`;
  canvas.style.height = `${side / dpr}px`;
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, side, side);
  g.fillStyle = '#000000';
  for (let r = 0; r < modules.size; r++) {
    for (let c = 0; c < modules.size; c++) {
      if (modules.dark(r, c)) g.fillRect((c + QUIET_MODULES) * px, (r + QUIET_MODULES) * px, px, px);
    }
  }
}
