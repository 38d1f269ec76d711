"""The refusals' catalogue: every refusal the bingo's rules and hub give a person has a reason
and parameters, English words here and words in each language of the pages, so that a page
says it in its own language (the browser test: tests/displays/test_refusals.py)."""

from __future__ import annotations

import ast
import json
import string
from pathlib import Path
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo_hall.domain import Phase, RuleError
from bingo_hall.domain import commands as c
from bingo_hall.domain.profiles import VoidReason
from bingo_hall.domain.refusals import REFUSALS, Term, english, params_json
from bingo_hall.hub.auth import KNOWN_COMMANDS, TABLE_COMMANDS, Kind, Role
from bingo_hall.tables.catalogue import (
    BOULE_BET_TYPES,
    FORTUNE_BET_TYPES,
    LIMIT_GROUP,
    ROULETTE_BET_TYPES,
)
from bingo_hall.tables.floats import AMOUNTS
from bingo_hall.tables.phases import TablePhase
from bingo_hall.tables.profiles import GameName, SpinDirection, ZeroChoice
from bingo_hall.tables.profiles import Role as TableRole
from bingo_hall.tables.profiles import VoidReason as TableVoidReason
from support.hall import Hall, profile

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bingo_hall"
LANGUAGES = ("es", "eu", "en")
# where the bingo's refusals are given: each one of the catalogue
REFUSING = [
    PACKAGE / "domain" / "decide.py",
    PACKAGE / "domain" / "commissioning.py",
    PACKAGE / "hub" / "runtime.py",
    PACKAGE / "hub" / "commissioning.py",
    # a casino table's rules: every refusal of a table command (bets.py also reads the console's
    # bets file, in English)
    *(
        PACKAGE / "tables" / f"{name}.py"
        for name in (
            "decide",
            "spinning",
            "limits",
            "floats",
            "heads",
            "exchanges",
            "settlement",
            "state",
            "zero_rule",
            "colours",
        )
    ),
]


def texts(lang: str) -> dict[str, str]:
    return json.loads((ROOT / "displays" / "i18n" / f"{lang}.json").read_text("utf-8"))


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Call):
            yield node


def called(node: ast.Call) -> str:
    return ast.unparse(node.func)


def test_every_refusal_given_is_in_the_catalogue_and_every_one_is_given():
    given_reasons: set[str] = set()
    literals: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        if path.name == "refusals.py":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.add(node.value)
        for node in calls(path):
            if called(node) == "RuleError.of" and isinstance(node.args[0], ast.Constant):
                given_reasons.add(node.args[0].value)
            if called(node) == "CommandFailed.of" and isinstance(node.args[1], ast.Constant):
                given_reasons.add(node.args[1].value)
            if called(node) == "CommandFailed" and len(node.args) > 2:  # with its parameters
                given_reasons.add(ast.literal_eval(node.args[2]))
    assert given_reasons <= set(REFUSALS), given_reasons - set(REFUSALS)
    assert set(REFUSALS) <= literals, set(REFUSALS) - literals  # none left unused


@pytest.mark.parametrize("path", REFUSING, ids=lambda p: p.name)
def test_the_rules_refuse_only_with_refusals_of_the_catalogue(path):
    """A refusal written out as a bare message would reach the pages in English alone."""
    for node in calls(path):
        assert called(node) != "RuleError", ast.unparse(node)
        if called(node) == "CommandFailed" and len(node.args) < 3:  # no reason given
            # only the store's failure, in the driver's own words
            assert ast.unparse(node.args[0]) == "'store_failed'", ast.unparse(node)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_pages_have_words_for_every_refusal(lang):
    words = texts(lang)
    for reason, english_text in REFUSALS.items():
        text = words[f"refusal.{reason}"]
        if lang == "en":
            assert text == english_text, reason
        assert placeholders(text) <= placeholders(english_text), reason
        assert "{" not in text.format_map({name: "" for name in placeholders(text)}), reason
    unknown = {key for key in words if key.startswith("refusal.")} - {
        f"refusal.{reason}" for reason in REFUSALS
    }
    assert not unknown


TERMS = {
    "phase": [phase.value for phase in Phase],
    "table.phase": [phase.value for phase in TablePhase],
    "command": sorted(KNOWN_COMMANDS | TABLE_COMMANDS),
    "table.bet_type": sorted(
        {*ROULETTE_BET_TYPES, *BOULE_BET_TYPES, *FORTUNE_BET_TYPES, *LIMIT_GROUP.values()}
    ),
    "station.dir": [direction.value for direction in SpinDirection],
    "station.zero": [choice.value for choice in ZeroChoice],
    "table.game": [game.value for game in GameName],
    "table.void_reason": [reason.value for reason in TableVoidReason],
    "table.role": [role.value for role in TableRole],
    "table.amount": list(AMOUNTS),
    "table.prisoner": ["worth"],
    "table.in_sector": ["sector", "none"],
    "principal.kind": list(get_args(Kind)),
    "claim.kind": ["line", "bingo"],
    "claim.status": ["pending", "valid", "invalid"],
    "void.reason": [reason.value for reason in VoidReason],
    "role": [role.value for role in Role],
}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("family", TERMS)
def test_every_term_a_refusal_names_has_words_in_each_language(lang, family):
    words = texts(lang)
    missing = [name for name in TERMS[family] if f"{family}.{name}" not in words]
    assert not missing


plain = st.one_of(st.integers(), st.text(max_size=12))
param = st.one_of(
    plain,
    st.builds(Term, st.sampled_from(list(TERMS)), st.text(min_size=1, max_size=12)),
    st.lists(plain, max_size=3),
)


@given(reason=st.sampled_from(sorted(REFUSALS)), values=st.data())
def test_a_refusal_says_each_of_its_parameters(reason, values):
    params = {name: values.draw(param, label=name) for name in placeholders(REFUSALS[reason])}
    error = RuleError.of(reason, **params)
    assert (error.reason, error.params) == (reason, params)
    assert error.message == english(reason, params)
    said = json.loads(json.dumps(params_json(params)))
    for name, value in params.items():
        if isinstance(value, Term):
            assert said[name] == {"key": f"{value.family}.{value.name}", "text": value.name}
            assert value.name in error.message
        elif isinstance(value, list):
            assert said[name] == value
            assert ", ".join(str(item) for item in value) in error.message
        else:
            assert said[name] == value
            assert str(value) in error.message


def test_a_refusal_of_the_rules_carries_its_reason_and_what_it_names():
    hall = Hall(profile("1979")).open_ready()
    hall.run(c.AnnounceSeries(series=["A1"]))
    hall.run(c.StartSale())
    before = hall.state
    with pytest.raises(RuleError) as refused:
        hall.run(c.RecordSale(series_id="A1", first=5, last=10))
    assert refused.value.reason == "sale_not_consecutive"
    assert refused.value.params == {"series": "A1", "next": 1, "first": 5}
    assert refused.value.message == (
        "cards are sold consecutively: the next card of series A1 is no. 1, not 5"
    )
    assert hall.state == before
