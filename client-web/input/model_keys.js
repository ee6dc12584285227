// The model made visible, from the keyboard:
//
//   1 / 2 / 3  separation / alignment / cohesion on or off (rule_sep,
//              rule_ali, rule_coh: for everyone, so they go to the server
//              as set_param and the panel follows the server's `param`
//              echo, not the key)
//   4          perception radii and blind-angle wedges drawn (this page only)
//   5          density-dependent radii on or off (density_radii, set_param)
//
// A visitor's keys send nothing and say why.

import { isFormControl } from './input.js';
import { NEEDS_TOKEN } from '../net/role.js';
import { setParam } from '../net/commands.js';

// How long a sent switch waits for the server's echo before a new press
// goes by the page's value again.
const PENDING_MS = 2000;

export const RULE_KEYS = {
  1: { param: 'rule_sep', label: 'separation' },
  2: { param: 'rule_ali', label: 'alignment' },
  3: { param: 'rule_coh', label: 'cohesion' },
  5: { param: 'density_radii', label: 'density-dependent radii' },
};

// deps: { keyTarget, getParams() → { name: value }, send(command),
//         mayOperate(), onNotAllowed(text), onToggleRadii(on), now() (ms:
//         performance.now by default) }
export function attachModelKeys(deps) {
  const { keyTarget, getParams, send } = deps;
  const mayOperate = deps.mayOperate ?? (() => true);
  const onNotAllowed = deps.onNotAllowed ?? (() => {});
  const state = { radii: false };
  const now = deps.now ?? (() => performance.now());
  const pending = new Map(); // param → { value, at }: sent, echo not seen yet
  keyTarget.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat || isFormControl(ev.target)) return;
    if (ev.key === '4') {
      state.radii = !state.radii;
      deps.onToggleRadii?.(state.radii);
      return;
    }
    const rule = RULE_KEYS[ev.key];
    if (!rule) return;
    const params = getParams();
    if (!(rule.param in params)) return; // a server without it
    if (!mayOperate()) {
      onNotAllowed(`switching ${rule.label} ${NEEDS_TOKEN}`);
      return;
    }
    // The server's echo decides what the panel shows; until then nothing
    // changes here. A second press before that echo switches what the first
    // one sent (else two quick presses would both send "off"); a value
    // unconfirmed for PENDING_MS (refused, lost) no longer counts.
    const t = now();
    const p = pending.get(rule.param);
    const base = p && p.value !== params[rule.param] && t - p.at < PENDING_MS ? p.value : params[rule.param];
    pending.set(rule.param, { value: !base, at: t });
    send(setParam(rule.param, !base));
  });
  return state;
}
