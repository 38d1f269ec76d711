"""The hub's transports: the websocket protocol and server (MQTT bridge to come)."""
