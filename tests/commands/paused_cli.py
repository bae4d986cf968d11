"""``parasent`` that pauses inside its staging folder, as a slow write is paused there anyway:
the first ``Path.write_text`` into a ``.NAME.tmp-PID`` folder creates the file
``$PARASENT_PAUSE_READY``, then waits (up to 60 s) until ``$PARASENT_PAUSE_GO`` exists.

Run as ``python tests/commands/paused_cli.py ARGS`` by the tests of racing writers (two of them
released together, both past their checks) and of SIGTERM (sent while it waits). Only
``Path.write_text`` is wrapped; the command runs as ``parasent ARGS`` does.
"""

import os
import pathlib
import sys
import time

_real_write_text = pathlib.Path.write_text
_paused = []


def _write_text(self, *args, **kwargs):
    if ".tmp-" in str(self) and not _paused:
        _paused.append(True)
        pathlib.Path(os.environ["PARASENT_PAUSE_READY"]).touch()
        deadline = time.monotonic() + 60
        while not os.path.exists(os.environ["PARASENT_PAUSE_GO"]) and time.monotonic() < deadline:
            time.sleep(0.01)
    return _real_write_text(self, *args, **kwargs)


pathlib.Path.write_text = _write_text

if __name__ == "__main__":
    from parasent.cli import main

    sys.exit(main(sys.argv[1:]))
