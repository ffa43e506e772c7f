import sys

from perfstudy.cli import main

sys.exit(main())
