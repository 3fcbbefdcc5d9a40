// Compiled by `tsc --noEmit` (npm run check-types): the generated declarations type real use.
import type { ClientMessage, MatchState, ServerMessage } from "../types/index.js";
import type { Welcome } from "../types/server-message.js";
import { HulldownClient, odds, type CheckResult, type OddsAnswer } from "../hulldown-client.js";

export function unitNames(view: MatchState): string[] {
  return Object.values(view.units).map((unit) => `${unit.name} ${unit.hp}/${unit.profile.hp}`);
}

export function seqOf(message: ServerMessage): number | null {
  switch (message.type) {
    case "welcome":
    case "resync":
    case "patch":
    case "ack":
      return message.seq;
    default:
      return null;
  }
}

export const hello: ClientMessage = { type: "hello", token: "secret", resume_from: 3 };
export const act: ClientMessage = {
  type: "act",
  action_id: "a1",
  action: { type: "move", unit: "predator-1", path: [[12, 24]], heading: 10 },
};

export function firstWeaponFacing(result: CheckResult): string | null {
  return result.facts.weapons[0]?.facing ?? null;
}

export async function play(client: HulldownClient): Promise<number> {
  await client.connect();
  const answer = await client.act({ type: "end_phase" }, { expect: client.seq });
  return answer.type === "ack" ? answer.seq : -1;
}

export function delayed(welcome: Welcome): boolean {
  return welcome.delayed && welcome.view.ended === false;
}

export function destroyedChance(answer: OddsAnswer, unit: string): number {
  return answer.units.find((u) => u.unit === unit)?.destroyed.p ?? 0;
}

export async function shotOdds(base: string, matchId: string, token: string): Promise<string[]> {
  const answer = await odds(base, matchId, token, { type: "shoot", unit: "predator-1", fire: [{ weapon: "lascannon", target: "rhino-1" }] }, { method: "sampled", samples: 500 });
  return answer.method === "sampled" ? answer.summary : [];
}
