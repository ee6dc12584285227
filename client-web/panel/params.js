// What the control panel shows of one parameter, without the DOM: the
// section it is grouped in (labels.js), its slider's scale (linear,
// logarithmic or whole steps) and the value a position stands for, its
// number as the field shows it, its value per species, and its help text.
// Pure, so Node tests check it (tests/js/panel/); panel.js builds the
// controls from it.

import { SECTIONS, sectionOf, labelOf, sectionOfModel } from './labels.js';

// Slider resolution for float parameters (positions 0 … SLIDER_STEPS).
export const SLIDER_STEPS = 1000;
// A positive range this many times wider at the top than at the bottom gets
// a logarithmic slider (max_force 1 … 10000: the useful values are low).
const LOG_RATIO = 1000;

// How many species a world can have (set_param's `species` is 0 … 3).
export const MAX_SPECIES = 4;

// The section holding a model's own parameters (opened when it is chosen).
export function modelGroupKey(model) {
  return sectionOfModel(model);
}

// params (hello's list) → [{ key, title, params }] in display order, without
// the `model` parameter (it has its own selector) and without empty groups.
export function groupParams(params) {
  const byKey = new Map(SECTIONS.map((g) => [g.key, { key: g.key, title: g.title, params: [] }]));
  for (const p of params) {
    if (!p || typeof p.name !== 'string' || p.name === 'model') continue;
    byKey.get(sectionOf(p.name)).params.push(p);
  }
  return [...byKey.values()].filter((g) => g.params.length > 0);
}

// Whether a parameter is a number with a usable range (a slider and a field).
export function isNumeric(p) {
  return (p.type === 'float' || p.type === 'int') && Number.isFinite(p.min) && Number.isFinite(p.max) && p.max > p.min;
}

// How a numeric parameter's slider works: 'int' (native integer steps),
// 'log' or 'linear' (positions 0 … SLIDER_STEPS mapped onto the range).
export function sliderKind(p) {
  if (p.type === 'int' && p.max - p.min <= SLIDER_STEPS) return 'int';
  if (p.min > 0 && p.max / p.min >= LOG_RATIO) return 'log';
  return 'linear';
}

// The decimals a linear float slider's values are rounded to: about a
// thousandth of the range (0 … 20 → 0.01, 1 … 200 → 0.1).
function linearDecimals(p) {
  const q = Math.floor(Math.log10((p.max - p.min) / SLIDER_STEPS));
  return Math.max(0, -q);
}

function clampTo(p, v) {
  return Math.min(p.max, Math.max(p.min, v));
}

// A value as the slider would send it: on the range, rounded to a sensible
// precision so that a drag sends 12.5 rather than 12.498046875.
export function quantize(p, v) {
  v = clampTo(p, v);
  if (p.type === 'int') return clampTo(p, Math.round(v));
  if (sliderKind(p) === 'log') return clampTo(p, Number(v.toPrecision(3)));
  return clampTo(p, Number(v.toFixed(linearDecimals(p))));
}

// Parameter value → slider position (the input's own value), and back.
export function toSlider(p, v) {
  const kind = sliderKind(p);
  v = clampTo(p, Number(v));
  if (kind === 'int') return Math.round(v);
  if (kind === 'log') return Math.round((SLIDER_STEPS * Math.log(v / p.min)) / Math.log(p.max / p.min));
  return Math.round((SLIDER_STEPS * (v - p.min)) / (p.max - p.min));
}

export function fromSlider(p, pos) {
  const kind = sliderKind(p);
  pos = Number(pos);
  if (kind === 'int') return quantize(p, pos);
  const t = Math.min(1, Math.max(0, pos / SLIDER_STEPS));
  if (t === 0) return p.min;
  if (t === 1) return p.max;
  if (kind === 'log') return quantize(p, p.min * Math.exp(t * Math.log(p.max / p.min)));
  return quantize(p, p.min + t * (p.max - p.min));
}

// A number for the numeric field: as the server stores it, but without
// float noise (0.30000001192092896 → 0.3).
export function formatNumber(v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '';
  return String(Number(v.toPrecision(6)));
}

// A parameter's value for each of the MAX_SPECIES species, from its hello
// entry: `species_values` (sent with more than one species) for the species
// in use, `value` for the others (a plain set_param sets them all).
export function speciesValuesOf(p) {
  const sv = Array.isArray(p.species_values) ? p.species_values : [];
  return Array.from({ length: MAX_SPECIES }, (_, s) => (s < sv.length ? sv[s] : p.value));
}

// A parameter's help as a sentence or two: what it does, its range (with
// the unit) and default.
export function helpText(p) {
  const parts = [];
  if (p.help) parts.push(p.help.charAt(0).toUpperCase() + p.help.slice(1) + '.');
  const unit = p.unit ? ` ${p.unit}` : '';
  if (isNumeric(p)) parts.push(`Range ${p.min} … ${p.max}${unit}.`);
  else if (p.type === 'enum' && Array.isArray(p.values)) parts.push(`One of ${p.values.join(', ')}.`);
  if (p.default !== undefined) parts.push(`Default ${p.default}${isNumeric(p) ? unit : ''}.`);
  return parts.join(' ');
}

// The hover text: label, name and help.
export function tooltip(p) {
  return `${labelOf(p)} (${p.name}): ${helpText(p)}`;
}
