"""hulldown: a live game-state server for tabletop wargames.

Every player action is appended as a typed event to a Redis stream; a pure reducer folds the
events into game state using the rules core; websockets push state diffs to players and
spectators.
"""

__version__ = "0.1.0"
