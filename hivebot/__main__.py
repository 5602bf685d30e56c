"""``python -m hivebot``: the same as ``hive-bot``."""

import sys

from hivebot.cli import main

sys.exit(main())
