"""The facts of the game. Each event is appended to the log before anyone is told of it.

Payloads hold everything needed to rebuild the state by replay, and everything the acta
prints; the envelope (hall, game, seq, time, actor, hashes) is added by the store.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bingo_hall.domain.profiles import RuleProfile, VoidReason

MachineKind = Literal["drum", "pneumatic"]
WitnessFloor = Annotated[float, Field(ge=0.5, lt=1.0)]  # a majority guess, short of certainty
ClaimKind = Literal["line", "bingo"]


class Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    type: ClassVar[str]

    def payload(self) -> dict:
        return self.model_dump(mode="json")


class SessionOpened(Event):
    type = "session_opened"
    session_id: int
    machine_id: str
    machine_kind: MachineKind
    machine_homologation: str = ""  # of the machine's model (S79 L1188); "": not configured
    profile: RuleProfile
    call_witness_floor: WitnessFloor | None = None  # `domain.call_check`; None: never


class EquipmentChecked(Event):
    type = "equipment_checked"
    ok: bool
    notes: str = ""


class BallSetRegistered(Event):
    type = "ball_set_registered"
    ball_set_id: str
    homologation: str = ""


class BallSetChanged(Event):
    type = "ball_set_changed"
    previous: str | None
    previous_games: int
    ball_set_id: str
    games: int
    reason: str


class BallsLoaded(Event):
    type = "balls_loaded"
    ball_set_id: str
    games: int


class SeriesRegistered(Event):
    type = "series_registered"
    series_id: str
    face_value: Decimal
    size: int
    commitment: str = ""


class LastGameAnnounced(Event):
    type = "last_game_announced"
    next_game_id: int


class SessionClosed(Event):
    type = "session_closed"
    session_id: int
    reason: Literal["closed", "equipment_check_failed", "balls_not_loaded"]
    note: str = ""  # why the balls were not loaded


class AnnouncedSeries(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    series_id: str
    face_value: Decimal
    size: int
    first_available: int


class SeriesAnnounced(Event):
    """A new game: the series to be sold, their card count and face value."""

    type = "series_announced"
    game_id: int
    series: tuple[AnnouncedSeries, ...]
    last_game: bool = False


class SaleStarted(Event):
    type = "sale_started"


class SoldRange(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    series_id: str
    first: int
    last: int
    face_value: Decimal

    @property
    def count(self) -> int:
        return self.last - self.first + 1

    @property
    def amount(self) -> Decimal:
        return self.face_value * self.count

    def __contains__(self, card_number: object) -> bool:
        return isinstance(card_number, int) and self.first <= card_number <= self.last


class SaleRecorded(Event):
    type = "sale_recorded"
    sale: SoldRange
    buyer: str | None = None  # an auxiliary terminal and its player: "terminal/player"
    purchase: str | None = None  # the terminal's name for the purchase (RecordSale.purchase)


class SaleClosed(Event):
    type = "sale_closed"
    sold: tuple[SoldRange, ...]
    cards_sold: int
    takings: Decimal


class PrizesAnnounced(Event):
    type = "prizes_announced"
    wording: str
    takings: Decimal
    line_prize: Decimal
    bingo_prize: Decimal
    paying_row: int | None = None


class DrawStarted(Event):
    type = "draw_started"
    ball_set_id: str
    games_on_set: int


class CameraCheck(BaseModel):
    """What the CCTV camera on the ball exit read (spec §4): kept with the ball for the acta.

    `reading` is set only when the reading passed the acceptance threshold; `guess` is the best
    guess (it may be a ball already drawn, still in view: then never the reading); `reason`,
    why there is no reading (`no_picture`: the camera gave no frame at
    all; `set_disagrees`: the ball set's prints kept at its commissioning name another ball
    than the guess, `set_ball`); `frame` is the SHA-256 of the JPEG frame kept in the store;
    `set_margin`, the margin by which the set's prints chose their ball: the reading's, when it
    was accepted on them below the networks' own threshold, or `set_ball`'s; `set_nearest`, the
    ball the set's prints lie nearest, however faintly, on a frame they recognise (None: no
    prints to read against, or a frame unlike every one of them).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    reading: int | None
    guess: int | None
    confidence: float = Field(ge=0.0, le=1.0)
    reason: Literal["no_ball", "unsure", "unreadable", "no_picture", "set_disagrees"] | None
    frame: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    set_margin: float | None = Field(default=None, ge=0.0, le=2.0)
    set_ball: int | None = Field(default=None, ge=1, le=90)
    set_nearest: int | None = Field(default=None, ge=1, le=90)

    @model_validator(mode="after")
    def _set_ball_with_its_reason(self) -> CameraCheck:
        if (self.set_ball is None) != (self.reason != "set_disagrees"):
            raise ValueError("set_ball is given with the reason set_disagrees, and only then")
        if self.set_ball is not None and (self.set_ball == self.guess or self.set_margin is None):
            raise ValueError("set_disagrees names a ball other than the guess, with its margin")
        if self.set_nearest is not None and self.set_ball not in (None, self.set_nearest):
            raise ValueError("the ball set_disagrees names is the one the set's prints lie nearest")
        return self


class CrossReading(BaseModel):
    """A showing's frame read against the prints of the set's other showings, as play reads a
    call against the set's references (`vision.set_references`): the ball they lie nearest,
    its margin over the next ball, and whether the rule of play accepts the camera's best
    guess on them."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    ball: int = Field(ge=1, le=90)
    margin: float = Field(ge=0.0, le=2.0)
    confirms: bool


class BallShowing(BaseModel):
    """One showing of a ball to the camera while its set is commissioned: the number the staff
    keyed for the ball shown, what the camera read, and (filled when the set is judged) what
    the set's other prints said of its frame."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    number: int = Field(ge=1, le=90)
    camera: CameraCheck
    cross: CrossReading | None = None

    @property
    def read(self) -> bool:
        """Read as its own number: by the camera, or on the set's other prints."""
        return self.camera.reading == self.number or self.cross_read

    @property
    def cross_read(self) -> bool:
        """Doubted by the camera's networks, and confirmed on the set's other prints."""
        return self.camera.reading != self.number and self.cross is not None and self.cross.confirms


class BallShownToCamera(Event):
    """A ball of a set being commissioned shown at the exit under the hall's camera, one at a
    time at the staff's word: kept in the log as it is shown, judged with the others later."""

    type = "ball_shown_to_camera"
    ball_set_id: str
    showing: BallShowing


class BallShowingsDiscarded(Event):
    """The showings of a set so far set aside unjudged: the staff show the set again. They stay
    in the log, and the acta counts them."""

    type = "ball_showings_discarded"
    ball_set_id: str
    showings: int
    misread: list[int]  # balls among them read (accepted) as another number


class BallSetCommissioned(Event):
    """Every ball of a set shown to the camera; `fit`: the camera may confirm its calls."""

    type = "ball_set_commissioned"
    ball_set_id: str
    fit: bool
    read: int  # showings read as their own number, by the camera or on the other prints
    wrong_guesses: int
    misread: list[int]
    near_misses: list[int]
    unread: list[int]
    refusals: list[str]
    showings: list[BallShowing]
    cross_read: int = 0  # of `read`, those the camera doubted and the set's other prints confirmed
    cross_wrong: int = 0  # showings whose nearest other prints were another ball's


HoldCause = Literal["camera", "uncommissioned_set"]


CheckVerdict = Literal["agreed", "witnessed", "confirmed", "corrected"]


class BallDrawn(Event):
    type = "ball_drawn"
    ordinal: int
    number: int
    source: str = "certified_random"
    camera: CameraCheck | None = None
    check: CheckVerdict | None = None  # how the camera confirmed it, or how a hold was resolved
    resolved_by: str | None = None


class BallHeld(Event):
    """The camera disagrees with the call or cannot read the ball: nothing is announced."""

    type = "ball_held"
    ordinal: int
    called: int
    source: str
    camera: CameraCheck
    cause: HoldCause = "camera"  # or: the set in service is not commissioned for the camera


class HoldResolved(Event):
    type = "hold_resolved"
    ordinal: int
    called: int
    number: int
    verdict: Literal["confirmed", "corrected"]
    resolved_by: str


class ClaimCalled(Event):
    type = "claim_called"
    claim_id: int
    kind: ClaimKind
    series_id: str
    card_number: int
    grid: tuple[tuple[int, ...], ...]
    ordinal: int


class ClaimVerified(Event):
    type = "claim_verified"
    claim_id: int
    valid: bool
    reason: str | None = None
    detail: str = ""
    rows: tuple[int, ...] = ()
    missing: tuple[int, ...] = ()
    completed_at: int | None = None


class AnyMoreAsked(Event):
    """«¿Alguna línea más? ¿Algún bingo más?»: the window for the same ball opens."""

    type = "any_more_asked"
    ordinal: int


class DrawResumed(Event):
    """Every claim was false: the draw goes on («el juego se reanudará»)."""

    type = "draw_resumed"
    ordinal: int


class OrderGiven(Event):
    """The Jefe de Mesa's order: every right to claim on this play is lost."""

    type = "order_given"
    order: Literal["resume", "finish"]
    ordinal: int


class Winner(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    claim_id: int
    series_id: str
    card_number: int


class PrizeSplit(Event):
    """A prize shared equally among simultaneous winners; what rounding leaves is the residue."""

    type = "prize_split"
    kind: ClaimKind
    ordinal: int
    pot: Decimal
    share: Decimal
    residue: Decimal
    winners: tuple[Winner, ...]


class LinePrizeUnclaimed(Event):
    type = "line_prize_unclaimed"
    amount: Decimal
    disposition: Literal["to_bingo", "lapses"]


class GameFinished(Event):
    type = "game_finished"
    game_id: int
    balls: int


class Restitution(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    claim_id: int
    series_id: str
    card_number: int
    amount: Decimal
    paid: bool


class GameVoided(Event):
    type = "game_voided"
    game_id: int
    reason: VoidReason
    note: str
    refunds: tuple[SoldRange, ...]
    refund_total: Decimal
    restitutions: tuple[Restitution, ...]
    awards_withdrawn: bool  # the profile's restitution on void: prizes of this game are taken back


class PrizePaid(Event):
    type = "prize_paid"
    game_id: int
    claim_id: int
    amount: Decimal


class RefundPaid(Event):
    """A range of a voided game's cards refunded at face value by the Cajero (S79 L1222; S77
    L2518-2524), the cards handed back: `cards` of them, `amount` in all. It names no player."""

    type = "refund_paid"
    game_id: int
    series_id: str
    first: int
    last: int
    cards: int
    amount: Decimal


PlayerRequestKind = Literal["information", "complaint"]


class PlayerRequestRecorded(Event):
    """A player's request for information or complaint (S77 L2427-2432), numbered in the hall's
    order; `answer` when it was answered as it was recorded. The envelope's actor took it down."""

    type = "player_request_recorded"
    request_id: int
    kind: PlayerRequestKind
    player: str
    text: str
    answer: str | None = None


class PlayerRequestAnswered(Event):
    type = "player_request_answered"
    request_id: int
    answer: str


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        SessionOpened,
        EquipmentChecked,
        BallSetRegistered,
        BallSetChanged,
        BallShownToCamera,
        BallShowingsDiscarded,
        BallSetCommissioned,
        BallsLoaded,
        SeriesRegistered,
        LastGameAnnounced,
        SessionClosed,
        SeriesAnnounced,
        SaleStarted,
        SaleRecorded,
        SaleClosed,
        PrizesAnnounced,
        DrawStarted,
        BallDrawn,
        BallHeld,
        HoldResolved,
        ClaimCalled,
        ClaimVerified,
        AnyMoreAsked,
        DrawResumed,
        OrderGiven,
        PrizeSplit,
        LinePrizeUnclaimed,
        GameFinished,
        GameVoided,
        PrizePaid,
        RefundPaid,
        PlayerRequestRecorded,
        PlayerRequestAnswered,
    )
}


def event_from_payload(event_type: str, payload: dict) -> Event:
    """Rebuild an event read back from the log."""
    return EVENT_TYPES[event_type].model_validate(payload)
