// The choices above each picture (which metric, which factor on which
// axis, the value every other factor is held at) as <select>s. A view keeps
// its choices in a plain object and rebuilds its row of controls from them
// after each change (which factors are free decides which others are held);
// the focus stays on the control that was in use.
(function (ns) {
  'use strict';

  // specs: [{ name, text, options: [[value, shown text]…], value }];
  // onChange(name, value) after the user picks.
  function renderControls(container, specs, onChange) {
    const focused = container.contains(document.activeElement) ? document.activeElement.name : null;
    const labels = specs.map((s) => {
      const label = document.createElement('label');
      const span = document.createElement('span');
      span.textContent = s.text;
      const select = document.createElement('select');
      select.name = s.name;
      for (const [value, shown] of s.options) select.append(new Option(shown, value));
      select.value = s.value;
      select.addEventListener('change', () => onChange(s.name, select.value));
      label.append(span, select);
      return label;
    });
    container.replaceChildren(...labels);
    if (focused) container.querySelector(`select[name="${CSS.escape(focused)}"]`)?.focus();
  }

  const options = (values) => values.map((v) => [v, v]);

  // Holding factor f at `value` leaves one value at most of the free
  // factors: a sampled design (Latin hypercube, a table), where each point
  // has values of its own.
  function holdingLeavesOne(table, free, f, value) {
    const left = ns.pointsWhere(table.points, { [f]: value });
    return free.filter((x) => x !== 'branch').every((x) => ns.distinctValues(left, x).length <= 1);
  }

  // Specs holding each factor not in `free` at a value: the one in
  // `fixed` when it is still one of its values, else the first (the `up`
  // branch first), or "(any)" when holding it would leave a single point
  // to draw (a sampled design). Updates `fixed` to match; returns the specs.
  function heldFactorSpecs(table, free, fixed) {
    const specs = [];
    for (const f of table.factors) {
      if (free.includes(f)) { delete fixed[f]; continue; }
      const values = ns.distinctValues(table.points, f);
      if (fixed[f] !== ns.ANY_VALUE && !values.includes(fixed[f])) {
        fixed[f] = values.length > 1 && holdingLeavesOne(table, free, f, values[0]) ? ns.ANY_VALUE : values[0];
      }
      specs.push({ name: `fixed:${f}`, text: `${f} =`, options: [[ns.ANY_VALUE, ns.ANY_VALUE], ...options(values)], value: fixed[f] });
    }
    return specs;
  }

  // A change from heldFactorSpecs' controls: true when it was one of them.
  function applyHeldChange(fixed, name, value) {
    if (!name.startsWith('fixed:')) return false;
    fixed[name.slice(6)] = value;
    return true;
  }

  // Under a picture where a factor left at "(any)" put two design points in
  // one place (grouping.js: `ambiguous`).
  ns.COLLIDE_NOTE = 'Several design points fall on one place: only the first is drawn; hold the other factors at a value.';

  ns.renderControls = renderControls;
  ns.valueOptions = options;
  ns.heldFactorSpecs = heldFactorSpecs;
  ns.applyHeldChange = applyHeldChange;
})(globalThis.SwarmcastExperiment ??= {});
