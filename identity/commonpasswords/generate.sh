#!/bin/sh
# Builds passwords.txt.gz, the common-password list that identity embeds,
# from two lists shipped on PyPI under licences that allow redistribution
# (see README.md): Django's common-passwords.txt.gz (BSD-3-Clause) and the
# "passwords" frequency list of zxcvbn (MIT). Needs pip and python3; run
# from this folder: sh generate.sh
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pip download --quiet --no-deps django==5.2.8 zxcvbn==4.5.0 -d "$work"
cd "$work"
python3 -m zipfile -e django-5.2.8-py3-none-any.whl django
python3 -m zipfile -e zxcvbn-4.5.0-py2.py3-none-any.whl zxcvbn
cd - >/dev/null
PYTHONPATH="$work/zxcvbn" python3 - "$work/django/django/contrib/auth/common-passwords.txt.gz" <<'PY' | gzip -9n >passwords.txt.gz
import gzip, sys, unicodedata
from zxcvbn.frequency_lists import FREQUENCY_LISTS
with gzip.open(sys.argv[1], "rt", encoding="utf-8") as f:
    words = [line for line in f]
words += FREQUENCY_LISTS["passwords"]
# One entry a line, NFC-normalised and lower-cased as identity compares
# them, sorted so that the file is reproducible.
out = {unicodedata.normalize("NFC", w.strip()).lower() for w in words}
out.discard("")
sys.stdout.write("".join(w + "\n" for w in sorted(out)))
PY
