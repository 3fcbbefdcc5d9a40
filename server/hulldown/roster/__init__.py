"""Roster import: BattleScribe / New Recruit rosters (``.ros`` XML, ``.rosz`` zipped) turned into
the units of a match definition (docs/roster-import.md). Pure: bytes in, units and a report out."""
