"""Control system of a Spanish bingo hall."""
