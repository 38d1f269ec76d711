"""Card generator: an exactly uniform sampler of valid Spanish cards, and series built from it."""

from card_generator.sampler import (
    TOTAL_CARDS,
    card_rng,
    count_by_profile,
    new_seed,
    sample_card,
)
from card_generator.series import (
    ALGORITHM_VERSION,
    SERIES_ID_PATTERN,
    GeneratedSeries,
    card_records,
    generate_series,
    validate_series_id,
)

__all__ = [
    "ALGORITHM_VERSION",
    "SERIES_ID_PATTERN",
    "TOTAL_CARDS",
    "GeneratedSeries",
    "card_records",
    "card_rng",
    "count_by_profile",
    "generate_series",
    "new_seed",
    "sample_card",
    "validate_series_id",
]
