import sys

from orkas_tui.cli import main

sys.exit(main())
