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
from bingo_hall.domain.refusals import Term
from bingo_hall.tables.profiles import GameName, TableGame

TWO_LAYOUT_GAMES = frozenset(
    {GameName.FRENCH_ROULETTE, GameName.AMERICAN_ROULETTE, GameName.AMERICAN_ROULETTE_00}
)
"""Games a table may play on two layouts: the roulette «a dos paños» (N79 L111, EUS L210) and
the American «mesa doble» (N79 L252, EUS L332). Boule's two layouts are not modelled."""


def check_layouts(table: TableGame, layouts: int) -> None:
    if layouts == 2 and table.game not in TWO_LAYOUT_GAMES:
        raise RuleError.of("table_two_layouts_roulette_only", **table.named)


def check_deputy(table: TableGame, layouts: int) -> None:
    """A deputy head stands beside the head at a two-layout table, where the profile has one
    («un jefe de mesa y un subjefe de mesa», N79 L119; none under EUS L218, nor at a table on
    one layout, N79 L119)."""
    if not table.rules.deputy_at_two_layouts:
        raise RuleError.of("table_no_deputy_head", **table.named)
    if layouts != 2:
        raise RuleError.of("table_deputy_two_layouts_only", **table.named)


@dataclass(frozen=True, slots=True)
class HeadedTable:
    """A table as the heads' rule sees it."""

    table_id: str
    sector: str  # "" when the configuration puts it in none
    tables_per_head: int  # its profile's
    game: GameName  # its game under its profile, for messages
    profile: str


def heading_problem(head: str, headed: list[HeadedTable], taking: HeadedTable) -> RuleError | None:
    """Why `head`, who heads the tables `headed` now, may not head `taking` as well; None when
    he may. Every table he would head allows as many heads' tables as he would have, and more
    than one only within one named sector."""
    tables = [t for t in headed if t.table_id != taking.table_id] + [taking]
    if len(tables) == 1:
        return None
    already = [t.table_id for t in tables[:-1]]
    strictest = min(tables, key=lambda t: t.tables_per_head)
    if len(tables) > strictest.tables_per_head:
        if strictest.tables_per_head == 1:
            return RuleError.of(
                "table_head_of_its_own",
                head=head,
                already=already,
                table=strictest.table_id,
                game=Term("table.game", strictest.game.value),
                profile=strictest.profile,
            )
        return RuleError.of(
            "table_head_directs_at_most",
            head=head,
            already=already,
            most=strictest.tables_per_head,
        )
    sectors = {t.sector for t in tables}
    if len(sectors) > 1 or "" in sectors:
        where = [_in_sector(t) for t in tables]
        return RuleError.of("table_head_across_sectors", head=head, already=already, where=where)
    return None


def _in_sector(table: HeadedTable) -> Term:
    """«R1 in A», «R2 in no sector», as the pages say it (`table.in_sector.*`)."""
    if not table.sector:
        return Term(
            "table.in_sector",
            "none",
            f"{table.table_id} in no sector",
            (("table", table.table_id),),
        )
    return Term(
        "table.in_sector",
        "sector",
        f"{table.table_id} in {table.sector}",
        (("table", table.table_id), ("sector", table.sector)),
    )
