import sys

from snapshot.cli import main

sys.exit(main())
