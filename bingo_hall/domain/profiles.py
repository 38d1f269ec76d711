"""Rule profiles: every difference between the catalogues is a named setting, loaded as data.

The profiles themselves live in config/profiles/*.toml (read by bingo_hall.config);
docs/rules.md explains each value.
"""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator


class ClaimDeadline(StrEnum):
    NEXT_BALL = "next_ball"  # 1977: claim before the next number is called
    UNTIL_ORDER = "until_order"  # 1979: until the Jefe de Mesa orders resume or finish


class UnclaimedLinePrize(StrEnum):
    TO_BINGO = "to_bingo"  # the line pot is added to the bingo pot
    LAPSES = "lapses"  # the line pot is not paid; recorded as undistributed


class LinePrizePayable(StrEnum):
    AT_VERIFICATION = "at_verification"  # once the «¿Alguna línea más?» order is given
    AT_GAME_END = "at_game_end"  # with the bingo, when the game is finished


class VoidReason(StrEnum):
    ANNOUNCEMENT_ERROR = "announcement_error"
    EQUIPMENT_BREAKDOWN = "equipment_breakdown"
    REGLAMENTO_ART36_OTHER = "reglamento_art36_other"


class RuleProfile(BaseModel):
    """One catalogue's rules of bingo as settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str
    line_prize_percent: Decimal = Field(ge=0, le=100)
    bingo_prize_percent: Decimal = Field(ge=0, le=100)
    rounding_unit: Decimal = Field(gt=0)
    currency: str = "EUR"
    claim_deadline: ClaimDeadline
    last_number_on_combination: bool
    designated_line_allowed: bool
    restitution_on_void: bool
    void_reasons: tuple[VoidReason, ...]
    max_series_per_game: int = Field(ge=0, description="0: no limit")
    pneumatic_ball_set_game_limit: int = Field(ge=0, description="0: no limit")
    last_game_announcement_required: bool
    unclaimed_line_prize: UnclaimedLinePrize
    line_prize_payable: LinePrizePayable
    min_any_more_window_seconds: Decimal = Field(ge=0)
    sale_wording_first: str
    sale_wording_next: str
    sale_wording_end: str = ""
    terminals_per_hall_category: dict[str, int] = Field(default_factory=dict)
    max_series_per_terminal_player: int = Field(default=0, ge=0, description="0: no terminals")
    terminal_block_size: int = Field(default=6, ge=1, description="cards in a terminal «serie»")

    @field_validator("bingo_prize_percent")
    @classmethod
    def _prizes_fit(cls, value: Decimal, info) -> Decimal:  # type: ignore[no-untyped-def]
        line = info.data.get("line_prize_percent", Decimal(0))
        if line + value > 100:
            raise ValueError("line and bingo percentages add up to more than 100")
        return value

    def sale_wording(self, ranges: list[tuple[str, int, int]]) -> str:
        """The legal announcement of the cards sold: [(series, first, last), ...]."""
        parts = []
        for index, (series, first, last) in enumerate(ranges):
            template = self.sale_wording_first if index == 0 else self.sale_wording_next
            parts.append(template.format(series=series, first=first, last=last))
        return "".join(parts) + self.sale_wording_end
