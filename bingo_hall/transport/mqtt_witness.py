"""The broker as a witness of the log's head.

The broker keeps each stream's `state` retained, with the seq it reflects, in its own store.
A log that ends before that seq lost events it had committed and published (restored from an
older copy, a database failed over to a replica that lagged): the events are facts the panels,
terminals and MQTT clients were told, and the hub must not go on writing other events under
their numbers, nor overwrite the broker's record of them. A bridge reads the retained state on a
connection of its own before it publishes anything (its own connection keeps a persistent
session whose queued requests must not be consumed here)."""

from __future__ import annotations

import asyncio
import json
import logging

import aiomqtt
from aiomqtt.exceptions import MqttConnectError  # not exported at the top

from bingo_hall.config import MqttConfig

logger = logging.getLogger(__name__)


# The CONNACK codes of a refused login: MQTT 3.1.1's 4 (bad user name or password) and 5 (not
# authorised), MQTT 5's 134 and 135.
LOGIN_REFUSED_CODES = frozenset({4, 5, 134, 135})


class BrokerRefusedLogin(aiomqtt.MqttError):
    """The broker refused a hub connection's login: what to do about it, in one message."""

    def __init__(self, error: MqttConnectError, user: str, config: MqttConfig) -> None:
        sent = "its password" if config.password is not None else "no password"
        super().__init__(
            f"the broker refused user {user} with {sent} ({error}): its password file and "
            "ACL must hold the hub's users"
            + ("" if config.password is not None else " and [mqtt] password must be set")
            + "; `bingo-hall mqtt-access --config <hall.toml> --acl <file> --passwd <file>` "
            "writes them, then reload the broker (docs/mqtt.md, «Access control»)"
        )


def refused_login(error: BaseException) -> bool:
    """Whether `error` is the broker refusing the connection's user name or password."""
    if not isinstance(error, MqttConnectError):
        return False
    return getattr(error.rc, "value", error.rc) in LOGIN_REFUSED_CODES


class LogBehindBroker(Exception):
    """The broker's retained state reflects events the log no longer holds."""

    def __init__(self, topic: str, witnessed: int, head: int, user: str) -> None:
        self.topic, self.witnessed, self.head = topic, witnessed, head
        super().__init__(
            f"the MQTT broker's retained {topic} reflects seq {witnessed}, but the log ends at "
            f"seq {head}: the log has lost events it had published (restored from an older "
            "copy?). Nothing more is published on it. If the older log is meant, clear the "
            f"broker's record first, the hub stopped, as the bridge's own broker user "
            f"(mosquitto_pub -u {user} -P <the hub's password> -r -n -t {topic})"
        )


async def retained_seq(
    hostname: str,
    port: int,
    config: MqttConfig,
    topic: str,
    identifier: str,
    marker_topic: str,
    wait: float = 5.0,
) -> int | None:
    """The seq of the state retained on `topic`, or None when there is none (or it names no
    seq). The broker sends a retained message right after granting the subscription; a marker
    then published to `marker_topic` (a topic only this client reads) comes back after it, so
    its arrival says that no retained state is coming. aiomqtt.MqttError when the broker cannot
    be reached; TimeoutError when it does not answer within `wait`."""
    client = aiomqtt.Client(
        hostname,
        port,
        username=identifier,  # the broker's user of this client id (mqtt_access.py)
        password=config.password,
        identifier=identifier,
        clean_session=True,
        timeout=wait,
    )
    try:
        async with client, asyncio.timeout(wait):
            await client.subscribe(topic, qos=1)
            await client.subscribe(marker_topic, qos=1)
            await client.publish(marker_topic, b"", qos=1)
            async for message in client.messages:
                if message.topic.matches(marker_topic):
                    return None
                if message.retain:
                    return _seq_of(message.payload)
    except MqttConnectError as error:
        if refused_login(error):
            raise BrokerRefusedLogin(error, identifier, config) from None
        raise
    except TimeoutError:
        # the broker took the login but neither the state nor the marker came back: its ACL
        # denies this user its topics, most often one written for another hall, topic prefix
        # or set of tables
        raise TimeoutError(
            f"no answer within {wait:g} s on {marker_topic}, the check's own topic: does the "
            "broker's ACL match this hall's configuration (bingo-hall mqtt-access)?"
        ) from None
    return None


def _seq_of(payload: object) -> int | None:
    try:
        seq = json.loads(payload) if isinstance(payload, bytes | bytearray | str) else None
    except ValueError:
        return None
    seq = seq.get("seq") if isinstance(seq, dict) else None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None
