"""Rule references for log lines and rejections that no edition's rulebook covers: they cite a
page of this repository's documentation a user has (docs/, client-protocol/SPEC.md), never an
internal design document."""

from __future__ import annotations

# docs/rules-notes.md, "All editions": the turn structure every edition shares.
TURNS = "docs/rules-notes.md, All editions: Turn structure"
# docs/architecture.md sections.
ACTION_FLOW = "docs/architecture.md, 1. The flow of one action"
DICE = "docs/architecture.md, 8. Dice: commit, derive, reveal, verify"
UNDO = "docs/architecture.md, 9. Undo and takebacks: undo"
TAKEBACK = "docs/architecture.md, 9. Undo and takebacks: takeback"
END_OF_MATCH = "docs/architecture.md, 12. End of match"
# client-protocol/SPEC.md: acting on a unit; pending decisions are answered with decide; the
# scenario a match is created with.
ACTING = "client-protocol/SPEC.md, 2.4 Acting"
DECISIONS = "client-protocol/SPEC.md, 2.4 Acting: pending decisions"
SCENARIO = "client-protocol/SPEC.md, 4. HTTP: POST /matches (the scenario)"
