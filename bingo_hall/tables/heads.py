"""Who heads a table: one head for each table (N79 L117-121, «el personal afecto a cada ruleta
comprende: un jefe de mesa …»), except where the profile lets one head or inspector direct up
to four tables, whatever their games, in one sector («Mahaiburu edo ikuskatzaile bat egon
daiteke lau mahaietarako, … betiere, mahaiak sektore berean baldin badaude», EUS L224, L650,
L1505). The rule spans the establishment's tables, so the hub checks it with every table's
head (`hub/table_runtime.py`); this is the check itself, pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables.profiles import GameName, TableGame

TWO_LAYOUT_GAMES = frozenset(
    {GameName.FRENCH_ROULETTE, GameName.AMERICAN_ROULETTE, GameName.AMERICAN_ROULETTE_00}
)
"""Games a table may play on two layouts: the roulette «a dos paños» (N79 L111, EUS L210) and
the American «mesa doble» (N79 L252, EUS L332). Boule's two layouts are not modelled."""


def check_layouts(table: TableGame, layouts: int) -> None:
    if layouts == 2 and table.game not in TWO_LAYOUT_GAMES:
        raise RuleError(
            f"{table.label}: a table on two layouts is a roulette's («a dos paños», N79 L111); "
            "not this game's"
        )


def check_deputy(table: TableGame, layouts: int) -> None:
    """A deputy head stands beside the head at a two-layout table, where the profile has one
    («un jefe de mesa y un subjefe de mesa», N79 L119; none under EUS L218, nor at a table on
    one layout, N79 L119)."""
    if not table.rules.deputy_at_two_layouts:
        raise RuleError(f"{table.label}: a table has no deputy head under this profile")
    if layouts != 2:
        raise RuleError(
            f"{table.label}: only a table on two layouts has a deputy head (N79 L119-121); "
            "this one has one layout"
        )


@dataclass(frozen=True, slots=True)
class HeadedTable:
    """A table as the heads' rule sees it."""

    table_id: str
    sector: str  # "" when the configuration puts it in none
    tables_per_head: int  # its profile's
    label: str  # its game under its profile, for messages


def heading_problem(head: str, headed: list[HeadedTable], taking: HeadedTable) -> str | None:
    """Why `head`, who heads the tables `headed` now, may not head `taking` as well; None when
    he may. Every table he would head allows as many heads' tables as he would have, and more
    than one only within one named sector."""
    tables = [t for t in headed if t.table_id != taking.table_id] + [taking]
    if len(tables) == 1:
        return None
    already = ", ".join(t.table_id for t in tables[:-1])
    strictest = min(tables, key=lambda t: t.tables_per_head)
    if len(tables) > strictest.tables_per_head:
        if strictest.tables_per_head == 1:
            return (
                f"{head} heads {already} already, and {strictest.table_id} ({strictest.label}) "
                "has a head of its own (N79 L117-121): another head takes one of them first"
            )
        return (
            f"{head} heads {already} already: one head directs at most "
            f"{strictest.tables_per_head} tables (EUS L224)"
        )
    sectors = {t.sector for t in tables}
    if len(sectors) > 1 or "" in sectors:
        where = ", ".join(f"{t.table_id} in {t.sector or 'no sector'}" for t in tables)
        return (
            f"{head} heads {already} already: one head directs several tables only in one "
            f"sector (EUS L224), and these are not ({where})"
        )
    return None
