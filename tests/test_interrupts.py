"""Ctrl-C at the end of a command, as a whole process (``benchmarks/interrupts.py`` draws the moments at random).

A SIGINT that arrives once the command has finished (its files written) but before the interpreter
has exited used to meet the restored default handler: a ``KeyboardInterrupt`` traceback, or the
process killed by the signal during its teardown, with the work done and no word said.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The program as the console script runs it (``main()`` reading ``sys.argv``), then a Ctrl-C after the
#: command has returned, while the interpreter is still running (its teardown, in a real process).
AFTER_THE_COMMAND = """
import os, signal, sys, time
sys.argv = ["predtron", "fit", sys.argv[1], "--task", "classify", "--model", sys.argv[2], "--quiet"]
from predtron.cli import main
status = main()
os.kill(os.getpid(), signal.SIGINT)
time.sleep(0.5)
print("STATUS", status)
sys.exit(status)
"""


def test_ctrl_c_after_the_command_finished_neither_kills_nor_prints(tmp_path):
    data = tmp_path / "train.svm"
    data.write_text("".join(f"{1 if i % 3 else -1} 1:{i % 7}.5 2:{i % 5}\n" for i in range(60)))
    model = tmp_path / "m.npz"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    result = subprocess.run([sys.executable, "-c", AFTER_THE_COMMAND, str(data), str(model)], capture_output=True,
                            text=True, env=env, cwd=tmp_path, timeout=300, check=False)
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    assert result.stderr == ""
    assert result.stdout.strip() == "STATUS 0"
    assert model.is_file()


def test_a_call_from_python_gets_its_handler_back(tmp_path):
    """Only the program ignores a late Ctrl-C: ``main(argv)`` called from Python code restores the caller's handler."""
    data = tmp_path / "train.svm"
    data.write_text("".join(f"{1 if i % 3 else -1} 1:{i % 7}.5 2:{i % 5}\n" for i in range(60)))
    code = ("import signal, sys\nfrom predtron.cli import main\n"
            "mine = lambda signum, frame: None\nsignal.signal(signal.SIGINT, mine)\n"
            "main(['fit', sys.argv[1], '--task', 'classify', '--model', sys.argv[2], '--quiet'])\n"
            "print(signal.getsignal(signal.SIGINT) is mine)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    result = subprocess.run([sys.executable, "-c", code, str(data), str(tmp_path / "m.npz")], capture_output=True,
                            text=True, env=env, cwd=tmp_path, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "True"


#: A Ctrl-C that arrives while the command line's modules are being imported (a finder sends the
#: signal when ``predtron.cli`` is about to be imported), in the console script's order: its
#: ``from predtron.__main__ import main`` comes first.
DURING_THE_IMPORT = """
import os, signal, sys

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "predtron.cli":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
from predtron.__main__ import main
print("not interrupted")
"""


def test_ctrl_c_while_the_command_line_is_imported_exits_130_with_one_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    result = subprocess.run([sys.executable, "-c", DURING_THE_IMPORT], capture_output=True, text=True, env=env,
                            cwd=tmp_path, timeout=300, check=False)
    assert result.returncode == 130, (result.returncode, result.stderr[-2000:])
    assert result.stderr == "predtron: interrupted\n"
    assert result.stdout == ""


def test_a_local_clusters_workers_start_with_ctrl_c_ignored():
    """A terminal's Ctrl-C reaches the whole process group: the cluster's workers must not print a traceback
    of their own while they start (the command handles it), so they are spawned with SIGINT ignored; the
    spawn executable and its script are gone afterwards."""
    import multiprocessing
    import multiprocessing.spawn
    import signal

    from predtron._files import pending
    from predtron.dask.cli import _workers_leave_ctrl_c_to_the_command

    before = multiprocessing.spawn.get_executable()
    with _workers_leave_ctrl_c_to_the_command():
        script = multiprocessing.spawn.get_executable()
        assert script != before and os.fsdecode(script) in pending()  # removed by an interrupt handler too
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            assert pool.apply(signal.getsignal, (signal.SIGINT,)) == signal.SIG_IGN
    assert multiprocessing.spawn.get_executable() == before
    assert not Path(os.fsdecode(script)).exists() and os.fsdecode(script) not in pending()
    with multiprocessing.get_context("spawn").Pool(1) as pool:  # and a process spawned later is as usual
        assert pool.apply(signal.getsignal, (signal.SIGINT,)) != signal.SIG_IGN
