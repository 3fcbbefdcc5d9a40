// Each edition's own characteristics and weapon profile, for the unit card and the units list
// (docs/table.md "What the table shows"). Only what the state carries (server/hulldown/match/
// state.py Profile, docs/match-definition.md "profile"): a value the edition does not have is not
// shown, and none is made up.

const plus = (n) => (n ? `${n}+` : "-");
const inches = (n) => `${Number(n)}"`;
const isArmoured = (unit) => !!unit.profile.armour;

// 40k11 Objective Control: the unit's `oc:X` keyword, else the default of its kind; Battle-shocked
// controls nothing (docs/missions.md "Control", server/hulldown/missions/control.py).
const DEFAULT_OC_40K11 = { infantry: 2, paragon: 2, vehicle: 3, walker: 3, monster: 3 };
const OC_KEYWORD = /^oc:(\d+)$/;

export function objectiveControl(unit) {
  if (unit.statuses && "battle_shocked" in unit.statuses) return { value: 0, note: "Battle-shocked" };
  for (const keyword of unit.keywords) {
    const found = OC_KEYWORD.exec(keyword);
    if (found) return { value: Number(found[1]), note: "" };
  }
  return { value: DEFAULT_OC_40K11[unit.kind] ?? 1, note: `the default for ${unit.kind}` };
}

// 40k7: WS BS S T W I A Ld Sv for a model; a vehicle has BS and its armour (a Walker also WS S I A);
// M only where the definition gives the unit a move of its own (40k7 Movement: 6" otherwise).
function stats40k7(unit) {
  const p = unit.profile;
  const own = p.m ? [["M", inches(p.m)]] : [];
  if (isArmoured(unit)) {
    const walker = unit.keywords.includes("walker") ? [["WS", p.ws], ["BS", p.bs], ["S", p.s], ["I", p.i], ["A", p.a]] : [["BS", p.bs]];
    return [...walker, ...(p.inv ? [["Inv", plus(p.inv)]] : [])];
  }
  return [...own, ["WS", p.ws], ["BS", p.bs], ["S", p.s], ["T", p.t], ["W", p.w], ["I", p.i], ["A", p.a], ["Ld", p.ld], ["Sv", plus(p.sv)], ["Inv", plus(p.inv)]];
}

// hh3: M WS BS S T W I A Ld Cl Int Sv Inv for a model; a vehicle has M, BS and its armour.
function statsHh3(unit) {
  const p = unit.profile;
  if (isArmoured(unit)) return [["M", inches(p.m)], ["BS", p.bs], ...(p.inv ? [["Inv", plus(p.inv)]] : [])];
  return [
    ["M", inches(p.m)], ["WS", p.ws], ["BS", p.bs], ["S", p.s], ["T", p.t], ["W", p.w], ["I", p.i], ["A", p.a],
    ["Ld", p.ld], ["Cl", p.cool], ["Int", p.intelligence], ["Sv", plus(p.sv)], ["Inv", plus(p.inv)],
  ];
}

// 40k11: M T Sv W Ld OC (Ld a target number), the invulnerable save, and the unit's hit rolls
// (the definition gives BS and WS as target numbers: docs/match-definition.md).
function stats40k11(unit) {
  const p = unit.profile;
  const oc = objectiveControl(unit);
  return [
    ["M", inches(p.m)], ["T", p.t], ["Sv", plus(p.sv)], ["W", p.w], ["Ld", plus(p.ld)],
    ["OC", oc.note ? `${oc.value} (${oc.note})` : oc.value], ["Inv", plus(p.inv)], ["BS", plus(p.bs)], ["WS", plus(p.ws)],
  ];
}

const STATS = { "40k7": stats40k7, hh3: statsHh3, "40k11": stats40k11 };

// [label, value] pairs of the unit's characteristics in its edition.
export function statline(unit, edition) {
  return (STATS[edition] || stats40k7)(unit);
}

// 40k11 AP is how much worse the save gets: written -1, -2 (0 for none); 40k7 and hh3: 1-6 or -.
const ap40k11 = (ap) => (ap ? `-${Math.abs(ap)}` : "0");

// 40k11 random characteristics are weapon rules (`attacks:d6+3`, `damage:d6`: docs/match-definition.md);
// the profile prints them as the datasheet does (A D6+3), not the average kept in `shots`/`damage`.
const RANDOM_RULES = ["attacks", "damage"];
const randomValue = (weapon, name) => {
  const rule = (weapon.rules || []).find((r) => r.startsWith(`${name}:`));
  return rule ? rule.slice(name.length + 1).toUpperCase() : null;
};

// [label, value] pairs of a weapon's profile in its edition (the name, mount and rules apart).
export function weaponProfile(weapon, unit, edition) {
  const range = weapon.range ? inches(weapon.range) : "Melee";
  if (edition === "40k11") {
    const skill = weapon.range ? ["BS", plus(unit.profile.bs)] : ["WS", plus(unit.profile.ws)];
    const attacks = randomValue(weapon, "attacks") ?? weapon.shots;
    const damage = randomValue(weapon, "damage") ?? weapon.damage;
    return [["Range", range], ["A", attacks], skill, ["S", weapon.strength], ["AP", ap40k11(weapon.ap)], ["D", damage]];
  }
  const type = weapon.type.replace("_", " ");
  return [["Range", range], ["S", weapon.strength], ["AP", weapon.ap ?? "-"], ["Type", weapon.shots > 1 ? `${type} ${weapon.shots}` : type]];
}

// A weapon's rules as a player reads them: 40k11 abilities in the datasheet's brackets
// (`rapid_fire:1` -> [RAPID FIRE 1], `anti:infantry:4` -> [ANTI-INFANTRY 4+]); random characteristics
// are in the profile, not here. Other editions' rules as they are written.
export function weaponRules(weapon, edition) {
  const rules = weapon.rules || [];
  if (edition !== "40k11") return [...rules];
  return rules.filter((r) => !RANDOM_RULES.includes(r.split(":")[0])).map(abilityText);
}

function abilityText(rule) {
  const [name, ...values] = rule.split(":");
  if (name === "anti" && values.length === 2) return `[ANTI-${values[0].toUpperCase()} ${values[1]}+]`;
  const words = name === "close_quarters" || name === "twin_linked" ? name.replace("_", "-") : name.replace(/_/g, " ");
  return `[${[words, ...values].join(" ").toUpperCase()}]`;
}

// A weapon's profile in one line (the name apart), e.g. `48" S9 AP2 heavy` or, 40k11, `48" A1 BS3+ S12 AP-3 D6`.
export function weaponText(weapon, unit, edition) {
  const [range, ...rest] = weaponProfile(weapon, unit, edition);
  const parts = rest.map(([k, v]) => (k === "Type" ? v : `${k}${v}`));
  return `${range[1]} ${parts.join(" ")}`;
}
