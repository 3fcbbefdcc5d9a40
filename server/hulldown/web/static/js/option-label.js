// The text of a decision's option button (docs/table.md "Decisions"; the options are those of
// docs/decisions.md). The button keeps the raw option in data-choice and sends it unchanged; only
// its text is made readable. Pure: the option, the view's units and the deciding side in, a
// string out.
//
// - a word with a label of its own (OPTION_LABELS) gets it;
// - a unit id: the unit's name and its id ("Rhino (rhino-2)", a 40k7 squadron member);
// - a model id: its unit's name and the model id ("Tactical Squad t-1", an allocation, a Paragon);
// - a weapon id: the weapon's name and its id ("Bolter (bolter-7)", hh3 Volley Attacks);
// - model/weapon (40k7 Death or Glory): "Tactical Squad e-0: Krak grenade", and
//   model/close_combat: "Tactical Squad e-0: close combat";
// - anything else (none, yes, no, all, a facing, a status...) is shown as it is.
// A weapon id is sought first among the deciding side's units (weapon ids are a unit's own).

export const OPTION_LABELS = { proposal: "Take the proposal", place: "Place", aim: "Aim" };

const own = (dict, key) => !!dict && Object.hasOwn(dict, key);
const words = (text) => text.replace(/_/g, " ");
const named = (name, id) => (name && name !== id ? `${name} (${id})` : id);

export function optionLabel(option, units, side) {
  if (own(OPTION_LABELS, option)) return OPTION_LABELS[option];
  const all = Object.values(units || {});
  const order = [...all.filter((u) => u.side === side), ...all.filter((u) => u.side !== side)];
  const ownerOf = (mid) => order.find((u) => own(u.models, mid));
  const slash = option.indexOf("/");
  if (slash > 0) {
    const mid = option.slice(0, slash);
    const what = option.slice(slash + 1);
    const unit = ownerOf(mid);
    if (!unit) return option;
    const weapon = own(unit.weapons, what) ? unit.weapons[what] : null;
    return `${unit.name} ${mid}: ${weapon ? weapon.name || what : words(what)}`;
  }
  if (own(units, option)) return named(units[option].name, option);
  const owner = ownerOf(option);
  if (owner) return `${owner.name} ${option}`;
  const armed = order.find((u) => own(u.weapons, option));
  if (armed) return named(armed.weapons[option].name, option);
  return option;
}

// An action as a player names it, from its wire tag (the server's match/history.py ACTION_LABELS):
// a takeback target reads "after your End Phase", not "after your end_phase".
export const ACTION_LABELS = {
  move: "Move",
  pivot: "Pivot",
  shoot: "Shooting",
  charge: "Charge",
  fight: "Fight",
  challenge: "Challenge",
  embark: "Embark",
  disembark: "Disembark",
  abandon: "Abandon",
  join: "Join",
  leave: "Leave",
  manifest: "Psychic Power",
  end_phase: "End Phase",
  decide: "Decision",
  roll_off: "Roll-off",
  place_marker: "Objective Marker",
  deploy: "Deployment",
  reserve: "Reserves",
  deep_strike: "Deep Strike",
};

export function actionLabel(name) {
  if (own(ACTION_LABELS, name)) return ACTION_LABELS[name];
  return words(String(name)).replace(/\b\w/g, (c) => c.toUpperCase());
}
