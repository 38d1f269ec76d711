"""What stands of a credential, as the hub's watch reads it from a real store."""

from __future__ import annotations

import asyncio
import time

from sqlalchemy import create_engine

from bingo_hall.hub.credential_watch import CredentialWatch
from bingo_hall.store.credentials import CredentialStore

OLD = "una clave muy larga"
NEW = "otra clave aun mas larga"


def test_a_credential_stands_until_the_store_withdraws_it_and_a_newer_login_stands(tmp_path):
    store = CredentialStore(create_engine(f"sqlite:///{tmp_path / 'hall.sqlite'}"))
    store.add_user("sala1", "jefe_de_sala", OLD)
    token = store.add_device("mon-1", "monitor")
    watch = CredentialWatch(store.standing)
    first_at = time.monotonic()
    staff, device = store.check_password("sala1", OLD), store.check_token(token)
    assert staff is not None and device is not None
    assert watch.stands(staff, first_at) and watch.stands(device, first_at)  # nothing read yet

    asyncio.run(watch.refresh())
    assert watch.stands(staff, first_at) and watch.stands(device, first_at)

    store.set_password("sala1", NEW)
    store.revoke_device("mon-1")
    asyncio.run(watch.refresh())
    assert not watch.stands(staff, first_at) and not watch.stands(device, first_at)

    # a login with the new password, checked after the last read: newer than what it saw
    store.set_password("sala1", OLD + "!")  # changed again, after the read
    newer_at = time.monotonic()
    newer = store.check_password("sala1", OLD + "!")
    assert newer is not None and watch.stands(newer, newer_at)
    asyncio.run(watch.refresh())
    assert watch.stands(newer, newer_at) and watch.stands(newer, first_at)

    store.deactivate_user("sala1")
    asyncio.run(watch.refresh())
    assert not watch.stands(newer, newer_at)
    store.activate_user("sala1")
    asyncio.run(watch.refresh())
    assert watch.stands(newer, newer_at)
