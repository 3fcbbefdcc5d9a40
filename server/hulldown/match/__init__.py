"""The pure match layer: actions, events, state, the reducer, validation, views and diffs."""
