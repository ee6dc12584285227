// How the control panel names and groups the parameters for people: a
// readable label ("Separation weight") for each parameter name (`w_sep`),
// and the section it belongs in. The server's `hello` stays the authority
// on what exists, its range, unit and help text; a parameter missing here
// still gets a control, labelled from its help text (see labelOf).

// Sections, in display order. `models`: the models whose own parameters
// the section holds (it opens when that model is chosen).
export const SECTIONS = [
  { key: 'rules', title: 'Flocking rules', models: ['reynolds'] },
  { key: 'perception', title: 'Perception', models: [] },
  { key: 'motion', title: 'Speed and steering', models: [] },
  { key: 'targets', title: 'Targets and leaders', models: [] },
  { key: 'obstacles', title: 'Obstacles and border', models: [] },
  { key: 'os', title: 'Olfati-Saber model', models: ['olfati1', 'olfati2', 'olfati3'] },
  { key: 'uni', title: 'Unicycle model', models: ['unicycle'] },
  { key: 'cz', title: 'Couzin zone model', models: ['couzin'] },
  { key: 'wander', title: 'Wandering', models: [] },
  { key: 'predators', title: 'Predators', models: [] },
  { key: 'density', title: 'Density-dependent radii', models: [] },
  { key: 'delay', title: 'Delayed sensing', models: [] },
  { key: 'world', title: 'World', models: [] },
];

// name → [label, section key]
const TABLE = {
  model: ['Flocking model', 'world'],
  species: ['Number of species', 'world'],
  rule_sep: ['Separation rule on', 'rules'],
  rule_ali: ['Alignment rule on', 'rules'],
  rule_coh: ['Cohesion rule on', 'rules'],
  w_sep: ['Separation weight', 'rules'],
  w_ali: ['Alignment weight', 'rules'],
  w_coh: ['Cohesion weight', 'rules'],
  ali_mode: ['Alignment by', 'rules'],
  personal_space: ['Personal space (bodies inside push the agent away)', 'rules'],
  separation: ['Separation and cohesion by', 'rules'],
  pot_a: ['Potential attraction A', 'rules'],
  pot_b: ['Potential repulsion B', 'rules'],
  pot_m: ['Potential attraction exponent m', 'rules'],
  pot_n: ['Potential repulsion exponent n', 'rules'],
  sep_radius: ['Separation radius', 'perception'],
  ali_radius: ['Alignment radius', 'perception'],
  coh_radius: ['Cohesion radius', 'perception'],
  fov_sep: ['Separation field of view', 'perception'],
  fov_ali: ['Alignment field of view', 'perception'],
  fov_coh: ['Cohesion field of view', 'perception'],
  max_candidates: ['Neighbours sensed at most', 'perception'],
  steer_every: ['Steer every (ticks; staggered, not exact above 1)', 'perception'],
  max_speed: ['Top speed', 'motion'],
  max_force: ['Steering limit', 'motion'],
  w_leader: ['Leader pull to target', 'targets'],
  leader_rule: ['Who leads', 'targets'],
  w_target: ['Everyone\'s pull to target', 'targets'],
  target_radius: ['Gathering radius', 'targets'],
  arrive_radius: ['Leader slow-down radius', 'targets'],
  w_avoid: ['Obstacle avoidance weight', 'obstacles'],
  obstacle_buffer: ['Obstacle clearance', 'obstacles'],
  avoid_lookahead: ['Obstacle look-ahead', 'obstacles'],
  border: ['World edge', 'obstacles'],
  w_wander: ['Wander weight', 'wander'],
  wander_radius: ['Wander circle radius', 'wander'],
  wander_distance: ['Wander circle distance', 'wander'],
  wander_jitter: ['Wander drift', 'wander'],
  predators: ['Number of predators', 'predators'],
  predator_speed: ['Predator speed', 'predators'],
  fear_radius: ['Fear radius', 'predators'],
  w_flee: ['Flee weight', 'predators'],
  density_radii: ['Density-dependent radii on', 'density'],
  radius_min: ['Smallest radius', 'density'],
  radius_smoothing: ['Radius smoothing', 'density'],
  radius_influence: ['Radius lost per neighbour', 'density'],
  delay_ticks: ['Sensing delay', 'delay'],
  delay_mode: ['Delay applies to', 'delay'],
  os_d: ['Desired distance d', 'os'],
  os_r: ['Interaction range r', 'os'],
  os_d_beta: ['Obstacle distance d\'', 'os'],
  os_r_beta: ['Obstacle range r\'', 'os'],
  os_eps: ['Sigma-norm ε', 'os'],
  os_a: ['Attraction a', 'os'],
  os_b: ['Repulsion b', 'os'],
  os_h_alpha: ['Bump h (agents)', 'os'],
  os_h_beta: ['Bump h (obstacles)', 'os'],
  os_c1_alpha: ['Gradient gain c1α', 'os'],
  os_c2_alpha: ['Consensus gain c2α', 'os'],
  os_c1_beta: ['Obstacle gradient gain c1β', 'os'],
  os_c2_beta: ['Obstacle consensus gain c2β', 'os'],
  os_c1_gamma: ['Target position gain c1γ', 'os'],
  os_c2_gamma: ['Target velocity gain c2γ', 'os'],
  os_ref_vx: ['Drift velocity x', 'os'],
  os_ref_vy: ['Drift velocity y', 'os'],
  uni_speed_min: ['Slowest speed', 'uni'],
  uni_speed_max: ['Fastest speed', 'uni'],
  uni_k_sep: ['Separation gain', 'uni'],
  uni_k_ali: ['Alignment gain', 'uni'],
  uni_k_coh: ['Cohesion gain', 'uni'],
  uni_k_heading: ['Heading gain', 'uni'],
  uni_jitter_min: ['Gain jitter, low', 'uni'],
  uni_jitter_max: ['Gain jitter, high', 'uni'],
  cz_r_r: ['Repulsion radius r_r', 'cz'],
  cz_dr_o: ['Orientation zone width Δr_o', 'cz'],
  cz_dr_a: ['Attraction zone width Δr_a', 'cz'],
  cz_fov: ['Field of perception α', 'cz'],
  cz_turn_rate: ['Maximum turning rate θ', 'cz'],
  cz_speed: ['Speed s', 'cz'],
  cz_noise: ['Angular noise σ', 'cz'],
};

// Prefixes of parameters this table does not know yet (a newer server).
const PREFIX_SECTIONS = [
  ['os_', 'os'], ['uni_', 'uni'], ['cz_', 'cz'], ['wander_', 'wander'], ['predator', 'predators'],
  ['density_', 'density'], ['radius_', 'density'], ['delay_', 'delay'], ['rule_', 'rules'], ['fov_', 'perception'],
];

// A parameter's section key.
export function sectionOf(name) {
  const known = TABLE[name];
  if (known) return known[1];
  for (const [prefix, key] of PREFIX_SECTIONS) if (name.startsWith(prefix)) return key;
  return 'world';
}

// A parameter's readable label. Unknown ones take their help text's first
// clause, capitalised ("predators' speed" → "Predators' speed"), or, with
// no help, the name with spaces ("foo_bar" → "Foo bar").
export function labelOf(p) {
  const name = typeof p === 'string' ? p : p?.name;
  if (TABLE[name]) return TABLE[name][0];
  const help = typeof p === 'object' && typeof p.help === 'string' ? p.help : '';
  let base = help.split(/[;:(]/)[help.includes(':') && help.indexOf(':') < 20 ? 1 : 0] ?? '';
  base = base.trim();
  if (base === '' || base.length > 40) base = String(name ?? '').replace(/_/g, ' ');
  return base.charAt(0).toUpperCase() + base.slice(1);
}

// The section whose parameters belong to a model (opened when it is chosen).
export function sectionOfModel(model) {
  for (const s of SECTIONS) if (s.models.includes(model)) return s.key;
  if (typeof model === 'string' && model.startsWith('olfati')) return 'os';
  return 'rules';
}
