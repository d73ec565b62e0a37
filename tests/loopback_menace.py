"""``menace`` whose ``serve`` listens on a free port of 127.0.0.1 whatever ``--host`` and ``--port`` say:
``python loopback_menace.py ARGS...``.

tests/test_examples.py runs the documentation's ``menace serve`` lines through it: servers in the
tests bind loopback only (a line's ``--host 0.0.0.0`` would open the shared test machine to its
network), and a fixed ``--port 8080`` could be taken by another test. Everything else of the line
runs as written: ``--host 0.0.0.0`` still makes the tokens, the addresses and the QR code.
"""

import sys

import menace.cli.serve
from menace.__main__ import main

if __name__ == "__main__":
    real_listen = menace.cli.serve.listen
    menace.cli.serve.listen = lambda host, port: real_listen("127.0.0.1", 0)
    sys.argv = ["menace", *sys.argv[1:]]
    main()
