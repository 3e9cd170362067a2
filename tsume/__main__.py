"""``python -m tsume``: the same CLI as the ``tsume`` command."""
from .cli import main

if __name__ == "__main__":
    main()
