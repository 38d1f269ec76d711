#!/usr/bin/env python3
"""Prepare the spoken numbers the hall's sound monitor plays (docs/screens.md, Sound).

Speaks 1-90 with espeak-ng in each language into var/audio/<lang>/<n>.wav (git-ignored), which
the hub serves at /audio/<lang>/<n>.wav. The voice and the text of each number come from the
translation files (displays/i18n/<lang>.json: `_meta.espeak_voice`, `speech.number`).
Idempotent: files already there are kept (--force makes them again).

    .venv/bin/python scripts/prepare_audio.py [--lang es,eu,en] [--out DIR] [--force]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bingo_hall.transport.page_data import AUDIO_DIR, languages, prepare_audio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default=",".join(languages()), help="languages, comma-separated")
    parser.add_argument("--out", default=str(AUDIO_DIR), help=f"cache folder (default {AUDIO_DIR})")
    parser.add_argument("--force", action="store_true", help="make every file again")
    args = parser.parse_args()
    langs = [lang for lang in args.lang.split(",") if lang]
    unknown = sorted(set(langs) - set(languages()))
    if unknown:
        print(f"prepare_audio: no translation file for {', '.join(unknown)}", file=sys.stderr)
        return 2
    try:
        made = prepare_audio(Path(args.out), langs, force=args.force)
    except RuntimeError as error:
        print(f"prepare_audio: {error}", file=sys.stderr)
        return 1
    print(f"prepare_audio: {made} files made in {args.out} ({', '.join(langs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
