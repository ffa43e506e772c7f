"""``perfstudy explore``: the explorers served by Voila, and stopping it with every kernel it started."""

from __future__ import annotations

import os
import signal
import sys


def add_parser(commands) -> None:
    explore = commands.add_parser(
        "explore",
        help="every explorer in a web page, no code (Voila, on 127.0.0.1)",
        description="Serve the explorers (designs, bootstrap Type I error, PT4Cloud, CONFIRM, peak-rate search) "
        "as a web app with Voila on 127.0.0.1, and print its URL. Needs the 'explore' extra "
        "(pip install '/path/to/perfstudy[explore]' from a clone). Real datasets are read from $PERFSTUDY_DATA.",
    )
    explore.add_argument("--port", type=int, default=8866, help="port to listen on (default: 8866)")
    explore.add_argument("--no-browser", action="store_true", help="do not open a browser")


def explore_command(args) -> int:
    import importlib.resources
    import importlib.util
    import subprocess
    from pathlib import Path

    if importlib.util.find_spec("voila") is None:
        from perfstudy._lib.extras import install_hint

        print(f"perfstudy explore: needs Voila; install it with {install_hint('explore')}", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print(f"perfstudy explore: --port {args.port}: expected a port from 1 to 65535", file=sys.stderr)
        return 2
    notebook = Path(str(importlib.resources.files("perfstudy") / "notebooks" / "explore.ipynb"))
    command = [
        sys.executable,
        "-m",
        "voila",
        str(notebook),
        "--Voila.ip=127.0.0.1",
        f"--port={args.port}",
        "--ServerApp.port_retries=0",
        "--show_tracebacks=False",
        # a kernel that has already run the notebook waits for the first visitor: the landing tab shows at once
        "--preheat_kernel=True",
        "--pool_size=1",
    ]
    if args.no_browser:
        command.append("--no-browser")
    print(f"perfstudy explore: http://127.0.0.1:{args.port}/ (Ctrl-C to stop)", flush=True)
    # Voila runs in a session of its own, so that Ctrl-C reaches this process alone (Jupyter's server would
    # ask "Shutdown this server?" and keep running); this process then stops it and every kernel it started.
    voila = subprocess.Popen(command, cwd=notebook.parent, start_new_session=True)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        return voila.wait()
    except KeyboardInterrupt:
        _stop_tree(voila)
        print("perfstudy explore: stopped", file=sys.stderr)
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


#: seconds Voila has to shut its kernels down after SIGTERM before what is left is killed
STOP_GRACE_S = 10.0


def _stop_tree(process) -> None:
    """Stop ``process`` and all its descendants: SIGTERM (Jupyter's server then shuts its kernels down),
    and SIGKILL for whatever is still alive after :data:`STOP_GRACE_S`. Kernels run in sessions of their
    own, so they are found by parentage (psutil, which Voila's kernels depend on), not by process group."""
    import subprocess

    try:
        import psutil

        tree = psutil.Process(process.pid).children(recursive=True)
    except Exception:  # psutil missing, or the process already gone: its group is all we can reach
        tree = []
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    for child in tree:
        try:
            child.wait(timeout=STOP_GRACE_S)
        except Exception:
            try:
                child.kill()
            except Exception:
                pass
