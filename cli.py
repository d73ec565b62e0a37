#!/usr/bin/env python3
"""Run menace from a checkout without installing it: ``python cli.py --help``."""

from menace.__main__ import main

if __name__ == "__main__":
    main()
