"""The wire contract both sides share: protocol messages, their JSON Schemas, the rejection catalogue."""
