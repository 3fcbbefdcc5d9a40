"""The Starlette application: HTTP routes, the websocket endpoint and the static viewer."""
