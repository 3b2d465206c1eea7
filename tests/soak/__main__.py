"""``python -m tests.soak --help``: the soak harness (``make soak``)."""

from tests.soak.run import main

if __name__ == "__main__":
    main()
