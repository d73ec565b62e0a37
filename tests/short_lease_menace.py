"""``menace`` with leases of another length: ``python short_lease_menace.py SECONDS ARGS...``.

The tests of a lease taken over across hosts use it so as not to wait the real 30 s; every process
sharing the database in such a test is started through it with the same SECONDS.
"""

import sys

import menace.storage.leases
from menace.__main__ import main

if __name__ == "__main__":
    menace.storage.leases.LEASE_SECONDS = float(sys.argv[1])
    sys.argv = ["menace", *sys.argv[2:]]
    main()
