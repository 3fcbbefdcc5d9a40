"""Missions as data (docs/missions.md): deployment maps, objective markers, the first-turn and
game-length rules and the scoring rules of each edition's standard missions. Pure: no I/O."""
