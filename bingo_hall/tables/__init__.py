"""The other games of the catalogue on linked tables; first the wheel games (docs/tables.md).

Pure rules, like bingo_hall.domain: `decide(state, command, now)` → events or a RuleError,
`evolve(state, event)` → state, `replay`. Settlement (`settle`) is a pure function of the
table's rules, its limits, the bets and the outcome.
"""
