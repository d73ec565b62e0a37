"""``menace`` whose ``serve`` listens on a free port of 127.0.0.1 whatever ``--host`` and ``--port`` say:
``python loopback_menace.py ARGS...``, or the children of a fork server (tests/forked_menace.py) that
called :func:`keep_to_loopback` once.

tests/test_examples.py runs the documentation's ``menace serve`` lines through it: servers in the
tests bind loopback only (a line's ``--host 0.0.0.0`` would open the shared test machine to its
network), and a fixed ``--port 8080`` could be taken by another test. Everything else of the line
runs as written: ``--host 0.0.0.0`` still makes the tokens, the addresses and the QR code.
"""

import sys

import menace.cli.serve
from menace.__main__ import main


def keep_to_loopback() -> None:
    """From now on, ``menace serve`` in this process (and in the processes forked from it) listens on a
    free port of 127.0.0.1."""
    real_listen = menace.cli.serve.listen
    menace.cli.serve.listen = lambda host, port: real_listen("127.0.0.1", 0)


if __name__ == "__main__":
    keep_to_loopback()
    sys.argv = ["menace", *sys.argv[1:]]
    main()
