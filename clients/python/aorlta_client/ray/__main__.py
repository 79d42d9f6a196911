"""``python -m aorlta_client.ray score|serve|bench`` (see :mod:`aorlta_client.ray.cli`)."""

import sys

from aorlta_client.ray.cli import main

sys.exit(main())
