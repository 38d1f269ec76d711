"""The shell around the rules: commands in, durable events out."""

from bingo_hall.hub.service import HallService, utc_now

__all__ = ["HallService", "utc_now"]
