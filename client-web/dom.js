// The page's two DOM builders, for parts built with createElement and
// classes (the page's CSP allows no inline style).

/** An element with a class and text (either may be absent). */
export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text != null) e.textContent = text;
  return e;
}

/** A plain button (type="button", class "btn …", a tooltip when given). */
export function button(className, text, title) {
  const b = el('button', `btn ${className}`, text);
  b.type = 'button';
  if (title) b.title = title;
  return b;
}
