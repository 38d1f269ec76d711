"""A casino table's stream on MQTT: the hall bridge's design (bingo_hall.transport.mqtt_bridge)
for each table, under ``{prefix}/{hall}/tables/{table}/`` (docs/mqtt.md):

- ``events``: every durable event of the table, in its seq order, QoS 1, payload = the
  websocket `event` frame (with `table`) as monitors get it: the table's public view, nothing
  of a player's bets or payments (fanout.TABLE_PUBLIC_FIELDS);
- ``state``: retained, the table's `TableStateMessage` (public: no bets, no settlement),
  published after the events it reflects;
- ``replay/request/<client>`` and ``replay/<client>``: every event after a seq of the table's
  stream.

One connection per table (client id and broker user ``bingo-hub-{hall}-table-{table}``), so
a table's bridge resumes, reconnects and replays on its own, exactly like the hall's.
"""

from __future__ import annotations

from typing import Any

from bingo_hall.config import MqttConfig
from bingo_hall.hub.table_runtime import LinkedTable
from bingo_hall.hub.table_service import TableSnapshot
from bingo_hall.transport.messages import table_state_message
from bingo_hall.transport.mqtt_access import table_client_id
from bingo_hall.transport.mqtt_bridge import StreamBridge


class TableBridge(StreamBridge):
    """Publishes one table's stream to an MQTT broker and answers its replay requests."""

    def __init__(self, table: LinkedTable, config: MqttConfig, **options: Any) -> None:
        self.table = table
        service = table.service
        super().__init__(
            service,
            config,
            stream=service.stream,
            identifier=table_client_id(service.hall_id, service.table_id),
            base=f"{config.topic_prefix}/{service.hall_id}/tables/{service.table_id}",
            **options,
        )

    def _capture(self) -> tuple[int, TableSnapshot]:
        snapshot = self.table.service.snapshot  # one value: its state goes with its seq
        return snapshot.seq, snapshot

    def _state_json(self, seq: int, state: TableSnapshot) -> str:
        spec, service = self.table.spec, self.table.service
        message = table_state_message(
            service.hall_id, spec.id, spec.name, spec.game, state, public=True
        )
        return message.model_dump_json()
